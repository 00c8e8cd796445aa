import Foundation
import MedVaultCore

/// The mapping between ``Medication`` and the `medication` table.
enum MedicationRow {
    /// The selected columns, in the order ``decode(_:)`` reads them; the last one is
    /// the rowid (the search index's docid).
    static let columns = """
        id, patient_id, name, generic_name, dosage_amount, dosage_unit, form, route, \
        frequency_kind, frequency_count, frequency_times, frequency_time_labels, instructions, \
        start_date, end_date, is_active, requires_prescription, inventory_current, \
        inventory_minimum, inventory_package_size, inventory_expiration_date, \
        created_at, updated_at, version, rowid
        """

    /// The same columns prefixed with `m.`, for joins.
    static let qualifiedColumns = columns
        .split(separator: ",")
        .map { "m." + $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: ", ")

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

    static let insert = """
        INSERT INTO medication (
            id, patient_id, name, generic_name, dosage_amount, dosage_unit, form, route,
            frequency_kind, frequency_count, frequency_times, frequency_time_labels, instructions,
            start_date, end_date, is_active, requires_prescription, inventory_current,
            inventory_minimum, inventory_package_size, inventory_expiration_date,
            created_at, updated_at, version
        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Every mutable column; `patient_id`, `id` and `created_at` never change.
    static let update = """
        UPDATE medication SET
            name = ?, generic_name = ?, dosage_amount = ?, dosage_unit = ?, form = ?, route = ?,
            frequency_kind = ?, frequency_count = ?, frequency_times = ?, frequency_time_labels = ?,
            instructions = ?, start_date = ?, end_date = ?, is_active = ?, requires_prescription = ?,
            inventory_current = ?, inventory_minimum = ?, inventory_package_size = ?,
            inventory_expiration_date = ?, updated_at = ?, version = ?
        WHERE rowid = ?
        """

    /// The arguments of ``insert``.
    static func insertArguments(_ medication: Medication) -> [DatabaseValue] {
        [medication.id.databaseValue, medication.patientID.databaseValue]
            + mutableArguments(medication).dropLast(2)
            + [medication.createdAt.databaseValue, medication.updatedAt.databaseValue, medication.version.databaseValue]
    }

    /// The arguments of ``update`` for the row `rowID`.
    static func updateArguments(_ medication: Medication, rowID: Int64) -> [DatabaseValue] {
        mutableArguments(medication) + [.integer(rowID)]
    }

    /// name … inventory_expiration_date, updated_at, version.
    private static func mutableArguments(_ m: Medication) -> [DatabaseValue] {
        let frequency = FrequencyColumns(m.frequency)
        return [
            m.name.databaseValue, m.genericName.databaseValue,
            .integer(m.dosage.amount.thousandths), m.dosage.unit.rawValue.databaseValue,
            m.form.rawValue.databaseValue, m.route.rawValue.databaseValue,
            frequency.kind.databaseValue, frequency.count.databaseValue,
            frequency.times.databaseValue, frequency.labels.databaseValue,
            m.instructions.databaseValue, m.startDate.databaseValue, m.endDate.databaseValue,
            m.isActive.databaseValue, m.requiresPrescription.databaseValue,
            m.inventory.map { .integer($0.current.thousandths) } ?? .null,
            m.inventory.map { .integer($0.minimum.thousandths) } ?? .null,
            m.inventory?.packageSize.map { .integer($0.thousandths) } ?? .null,
            m.inventory?.expirationDate.databaseValue ?? .null,
            m.updatedAt.databaseValue, m.version.databaseValue,
        ]
    }

    /// Reads a row selected with ``columns``.
    ///
    /// - Returns: The medication and its rowid.
    /// - Throws: ``MedVaultError/Code/corrupted`` for a value that does not decode.
    static func decode(_ row: Row) throws -> (medication: Medication, rowID: Int64) {
        let frequency = try FrequencyColumns(
            kind: row[8], count: row[9], times: row[10], labels: row[11]).frequency
        var inventory: MedicationInventory?
        if !row.isNull(at: 17) {
            inventory = MedicationInventory(
                current: MedicationQuantity(thousandths: try row[17]),
                minimum: MedicationQuantity(thousandths: try row[18]),
                packageSize: (try row[19] as Int64?).map(MedicationQuantity.init(thousandths:)),
                expirationDate: try row[20])
        }
        let medication = Medication(
            id: try row[0], patientID: try row[1], name: try row[2], genericName: try row[3],
            dosage: Dosage(amount: MedicationQuantity(thousandths: try row[4]), unit: DosageUnit(try row[5] as String)),
            form: MedicationForm(try row[6] as String), route: AdministrationRoute(try row[7] as String),
            frequency: frequency, instructions: try row[12], startDate: try row[13], endDate: try row[14],
            isActive: try row[15], requiresPrescription: try row[16], inventory: inventory,
            createdAt: try row[21], updatedAt: try row[22], version: try row[23])
        return (medication, row.int64(at: 24))
    }
}

/// ``MedicationFrequency`` spread over four columns: a kind, a count (times per day
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
    /// - Throws: ``MedVaultError/Code/corrupted`` for an unknown kind or missing part.
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
