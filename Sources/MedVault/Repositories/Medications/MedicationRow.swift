import Foundation
import MedVaultCore

/// The mapping between `Medication` and the `medication` table.
enum MedicationRow {
    /// The selected columns, in the order of the SELECT list; the last one is the
    /// rowid (the search index's docid).
    enum Column: Int32, TableColumn {
        case id, patientID, name, genericName, dosageAmount, dosageUnit, form, route
        case frequencyKind, frequencyCount, frequencyTimes, frequencyTimeLabels, instructions
        case startDate, endDate, isActive, requiresPrescription
        case inventoryCurrent, inventoryMinimum, inventoryPackageSize, inventoryExpirationDate, inventoryDeclared
        case strengthAmount, strengthUnit
        case maximumDosesPer24Hours, deactivatedAt
        case createdAt, updatedAt, version, rowID

        var name: String {
            switch self {
            case .maximumDosesPer24Hours: "maximum_doses_per_24h"
            case .rowID: "rowid"
            default: derivedName
            }
        }

        /// The columns an INSERT writes: all but the rowid, which SQLite assigns.
        static let inserted = allCases.filter { $0 != .rowID }
        /// The columns an UPDATE writes: `id`, `patient_id` and `created_at` never change.
        static let updated = inserted.filter { !([.id, .patientID, .createdAt] as [Column]).contains($0) }
    }

    /// The SELECT list ``decode(_:)`` reads.
    static let columns = Column.selection

    /// The same columns prefixed with `m.`, for joins.
    static let qualifiedColumns = Column.selection(alias: "m")

    static let selectByID = "SELECT \(columns) FROM medication WHERE id = ?"
    static let selectByPatient = "SELECT \(columns) FROM medication WHERE patient_id = ?"
    static let selectActiveByPatient = selectByPatient + " AND is_active = 1"
    static let selectInactiveByPatient = selectByPatient + " AND is_active = 0"
    /// Bound: the FTS4 MATCH string built from folded tokens only.
    static let selectMatching = """
        SELECT \(columns) FROM medication
        WHERE rowid IN (SELECT docid FROM medication_search WHERE medication_search MATCH ?)
        """
    static let selectMatchingForPatient = selectMatching + " AND patient_id = ?"

    static let insert = Column.insert(into: "medication", Column.inserted)

    /// Every mutable column, by rowid.
    static let update = Column.update("medication", set: Column.updated, where: "rowid")

    /// The arguments of ``insert``.
    static func insertArguments(_ medication: Medication) -> [VaultValue] {
        let frequency = FrequencyColumns(medication.frequency)
        return Column.inserted.map { argument($0, of: medication, frequency) }
    }

    /// The arguments of ``update`` for the row `rowID`.
    static func updateArguments(_ medication: Medication, rowID: Int64) -> [VaultValue] {
        let frequency = FrequencyColumns(medication.frequency)
        return Column.updated.map { argument($0, of: medication, frequency) } + [.integer(rowID)]
    }

    /// The stored value of `column` for `m`, whose frequency columns are `frequency`.
    private static func argument(_ column: Column, of m: Medication, _ frequency: FrequencyColumns) -> VaultValue {
        switch column {
        case .id: m.id.vaultValue
        case .patientID: m.patientID.vaultValue
        case .name: m.name.vaultValue
        case .genericName: m.genericName.vaultValue
        case .dosageAmount: .integer(m.dosage.amount.thousandths)
        case .dosageUnit: m.dosage.unit.rawValue.vaultValue
        case .form: m.form.rawValue.vaultValue
        case .route: m.route.rawValue.vaultValue
        case .frequencyKind: frequency.kind.vaultValue
        case .frequencyCount: frequency.count.vaultValue
        case .frequencyTimes: frequency.times.vaultValue
        case .frequencyTimeLabels: frequency.labels.vaultValue
        case .instructions: m.instructions.vaultValue
        case .startDate: m.startDate.vaultValue
        case .endDate: m.endDate.vaultValue
        case .isActive: m.isActive.vaultValue
        case .requiresPrescription: m.requiresPrescription.vaultValue
        case .inventoryCurrent: m.inventory.map { .integer($0.current.thousandths) } ?? .null
        case .inventoryMinimum: m.inventory.map { .integer($0.minimum.thousandths) } ?? .null
        case .inventoryPackageSize: m.inventory?.packageSize.map { .integer($0.thousandths) } ?? .null
        case .inventoryExpirationDate: m.inventory?.expirationDate.vaultValue ?? .null
        // A versioned write records the stock it wrote (MedicationStockLedger.requestedStock).
        case .inventoryDeclared: m.inventory.map { .integer($0.current.thousandths) } ?? .null
        case .strengthAmount: m.strength.map { .integer($0.amount.thousandths) } ?? .null
        case .strengthUnit: (m.strength?.unit.rawValue).vaultValue
        case .createdAt: m.createdAt.vaultValue
        case .updatedAt: m.updatedAt.vaultValue
        case .version: m.version.vaultValue
        case .maximumDosesPer24Hours: m.maximumDosesPer24Hours.vaultValue
        case .deactivatedAt: m.deactivatedAt.vaultValue
        case .rowID: .null  // never written: SQLite assigns it
        }
    }

    /// Reads a row selected with ``columns``.
    ///
    /// - Returns: The medication and its rowid.
    /// - Throws: `MedVaultError.Code.corrupted` for a value that does not decode.
    static func decode(_ row: VaultRow) throws -> (medication: Medication, rowID: Int64) {
        let row = ColumnRow<Column>(row: row)
        let frequency = try FrequencyColumns(
            kind: row[.frequencyKind], count: row[.frequencyCount],
            times: row[.frequencyTimes], labels: row[.frequencyTimeLabels]).frequency
        var inventory: MedicationInventory?
        if !row.isNull(.inventoryCurrent) {
            inventory = MedicationInventory(
                current: MedicationQuantity(thousandths: try row[.inventoryCurrent]),
                minimum: MedicationQuantity(thousandths: try row[.inventoryMinimum]),
                packageSize: (try row[.inventoryPackageSize] as Int64?).map(MedicationQuantity.init(thousandths:)),
                expirationDate: try row[.inventoryExpirationDate])
        }
        var strength: MedicationStrength?
        if let amount = try row[.strengthAmount] as Int64?, let unit = try row[.strengthUnit] as String? {
            strength = MedicationStrength(amount: MedicationQuantity(thousandths: amount), unit: DosageUnit(unit))
        }
        let medication = Medication(
            id: try row[.id], patientID: try row[.patientID], name: try row[.name],
            genericName: try row[.genericName],
            dosage: Dosage(amount: MedicationQuantity(thousandths: try row[.dosageAmount]),
                           unit: DosageUnit(try row[.dosageUnit] as String)),
            strength: strength,
            form: MedicationForm(try row[.form] as String), route: AdministrationRoute(try row[.route] as String),
            frequency: frequency, instructions: try row[.instructions], startDate: try row[.startDate],
            endDate: try row[.endDate], isActive: try row[.isActive],
            requiresPrescription: try row[.requiresPrescription], inventory: inventory,
            maximumDosesPer24Hours: try row[.maximumDosesPer24Hours],
            deactivatedAt: try row[.deactivatedAt],
            createdAt: try row[.createdAt], updatedAt: try row[.updatedAt], version: try row[.version])
        return (medication, row.int64(.rowID))
    }

    /// The columns a refill that starts an inventory or sets its expiration date
    /// changes: the whole inventory, the stock it declares, stamp and version.
    static let refillColumns: [Column] = [.inventoryCurrent, .inventoryMinimum, .inventoryPackageSize,
                                          .inventoryExpirationDate, .inventoryDeclared, .updatedAt, .version]
    /// `UPDATE` of ``refillColumns``, by rowid.
    static let updateRefilledInventory = Column.update("medication", set: refillColumns, where: "rowid")

    /// The columns deactivating changes: the active flag, stamp and version.
    static let activeColumns: [Column] = [.isActive, .deactivatedAt, .inventoryDeclared, .updatedAt, .version]
    /// `UPDATE` of ``activeColumns``, by rowid.
    static let updateActive = Column.update("medication", set: activeColumns, where: "rowid")

    /// The arguments of an update over `columns` (``refillColumns``,
    /// ``activeColumns``) of the row `rowID`.
    static func arguments(_ columns: [Column], of medication: Medication, rowID: Int64) -> [VaultValue] {
        let frequencyColumns: [Column] = [.frequencyKind, .frequencyCount, .frequencyTimes, .frequencyTimeLabels]
        // Encoding the frequency costs a string join: skip it when no column needs it.
        let frequency = columns.contains(where: { frequencyColumns.contains($0) })
            ? FrequencyColumns(medication.frequency)
            : FrequencyColumns(kind: "", count: nil, times: nil, labels: nil)
        return columns.map { argument($0, of: medication, frequency) } + [.integer(rowID)]
    }
}

/// `MedicationFrequency` spread over four columns: a kind, a count (times per day
/// or hours), a list of times (the specific times, or the anchor) and their labels.
struct FrequencyColumns {
    var kind: String
    var count: Int64?
    var times: String?
    var labels: String?

    init(_ frequency: MedicationFrequency) {
        switch frequency {
        case .timesPerDay(let count):
            kind = "timesPerDay"
            self.count = Int64(count)
        case .everyNHours(let hours, let anchor):
            kind = "everyNHours"
            count = Int64(hours)
            (times, labels) = TimeListCoding.encode([anchor])
        case .specificTimes(let list):
            kind = "specificTimes"
            (times, labels) = TimeListCoding.encode(list)
        case .asNeeded:
            kind = "asNeeded"
        }
    }

    init(kind: String, count: Int64?, times: String?, labels: String?) {
        self.kind = kind
        self.count = count
        self.times = times
        self.labels = labels
    }

    /// The frequency these columns describe.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` for an unknown kind or missing part.
    var frequency: MedicationFrequency {
        get throws {
            switch kind {
            case "asNeeded":
                return .asNeeded
            case "timesPerDay":
                guard let count else { break }
                return .timesPerDay(Int(count))
            case "everyNHours":
                guard let count, let times,
                      let anchor = try TimeListCoding.decode(minutes: times, labels: labels).first
                else { break }
                return .everyNHours(Int(count), startingAt: anchor)
            case "specificTimes":
                guard let times else { break }
                return .specificTimes(try TimeListCoding.decode(minutes: times, labels: labels))
            default:
                break
            }
            throw MedVaultError(.corrupted, reason: "a stored medication frequency is malformed")
        }
    }
}
