import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// `RecordTableRegistry` against what the migrations really build: every table declared
/// once, every declared fact true of the schema.
@Suite("Record-table registry")
struct RecordTableRegistryTests {
    /// The tables and views a new database brought up to date by `migrator` has (virtual
    /// tables' shadow tables and SQLite's own left out), and each one's columns. A record
    /// table may be a view (`diagnosis`, over `diagnosis_row` and `icd11_snapshot`).
    static func tables(_ migrator: SchemaMigrator) async throws -> [String: Set<String>] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pool = try await VaultDatabase.open(at: directory.file("schema.db"), key: SecureBytes.random(count: 32),
                                               mode: .createIfMissing, migrator: migrator)
        let tables = try await pool.read { db in
            let entries = try db.fetchAll("SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'view')") { row in
                (name: row.text(at: 0), sql: row.isNull(at: 1) ? "" : row.text(at: 1))
            }
            let virtual = entries.filter { $0.sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE") }.map(\.name)
            var tables: [String: Set<String>] = [:]
            for (name, _) in entries where !name.hasPrefix("sqlite_") && !virtual.contains(where: { name.hasPrefix($0 + "_") }) {
                tables[name] = Set(try db.fetchAll("PRAGMA table_info(\(name))") { row in row.text(at: 1) })
            }
            return tables
        }
        await pool.close()
        return tables
    }

    /// Tables `migrator` creates that the registry lacks, and declared tables it does not create.
    static func disagreement(_ migrator: SchemaMigrator) async throws -> (undeclared: Set<String>, missing: Set<String>) {
        let created = Set(try await tables(migrator).keys)
        let declared = Set(RecordTableRegistry.recordTables.map(\.table.rawValue))
            .union(RecordTableRegistry.internalTables.keys)
        return (created.subtracting(declared), declared.subtracting(created))
    }

    @Test("MedVault's migrations create exactly the tables the registry declares, each declared once")
    func registryMatchesMigrations() async throws {
        let (undeclared, missing) = try await Self.disagreement(MedVaultSchema.migrator)
        #expect(undeclared.isEmpty, "created by a migration, missing from RecordTableRegistry: \(undeclared.sorted())")
        #expect(missing.isEmpty, "declared in RecordTableRegistry, created by no migration: \(missing.sorted())")
        let names = RecordTableRegistry.recordTables.map(\.table.rawValue)
        #expect(Set(names).count == names.count)
        #expect(Set(names).isDisjoint(with: RecordTableRegistry.internalTables.keys))
    }

    @Test("A table added by a migration only is caught, and so is a declared table no migration creates")
    func disagreementIsCaught() async throws {
        var migrations = MedVaultSchema.migrator.migrations
        migrations.append(.init("an undeclared table") { db in
            try db.executeScript("CREATE TABLE medication_note (id BLOB PRIMARY KEY, text TEXT NOT NULL);")
        })
        let added = try await Self.disagreement(SchemaMigrator(migrations))
        #expect(added.undeclared == ["medication_note"])
        #expect(added.missing.isEmpty)

        // Without the migration "dose journal", its two tables are declared for nothing.
        let withoutJournal = MedVaultSchema.migrator.migrations.filter { $0.name != "dose journal" }
        #expect(withoutJournal.count == MedVaultSchema.migrator.migrations.count - 1)
        let missing = try await Self.disagreement(SchemaMigrator(withoutJournal)).missing
        #expect(missing == ["dose_journal_state", "dose_journal_merged"])
    }

    @Test("Each record table has its key column and the columns its patient link names")
    func declaredColumnsExist() async throws {
        let tables = try await Self.tables(MedVaultSchema.migrator)
        for record in RecordTableRegistry.recordTables {
            let columns = try #require(tables[record.table.rawValue], "\(record.table)")
            #expect(columns.contains(record.keyColumn), "\(record.table).\(record.keyColumn)")
            for name in record.alsoNames { #expect(columns.contains(name), "\(record.table).\(name)") }
            switch record.patientLink {
            case .isPatient, .none:
                break
            case .sameKey(let other):
                #expect(RecordTableRegistry.record(other) != nil, "\(record.table) keyed by \(other)")
            case .column(let column):
                #expect(columns.contains(column), "\(record.table).\(column)")
            case .parent(let parent, let via):
                #expect(columns.contains(via), "\(record.table).\(via)")
                guard case .column(let parentColumn) = RecordTableRegistry.record(parent)?.patientLink else {
                    Issue.record("\(record.table)'s parent \(parent) does not name the patient by a column")
                    continue
                }
                #expect(tables[parent.rawValue]?.contains(parentColumn) == true, "\(parent).\(parentColumn)")
            }
        }
    }

    @Test("The change log's table codes are the frozen ones of the file format")
    func changeLogCodesAreFrozen() {
        // Written out here, not derived: a renumbering in the registry must fail.
        let frozen: [VaultTable: Int64] = [
            .professional: 1, .patient: 2, .clinicalSession: 3, .diagnosis: 4, .attachment: 5,
            .medication: 6, .medicationSchedule: 7, .doseLog: 8, .doseLogRevision: 9, .medicationRefill: 10,
            .sessionSignature: 11, .sessionAddendum: 12, .medicationStockAdjustment: 13,
        ]
        #expect(ChangeLogCodes.tables == frozen)
        #expect(VaultTable.recordTables == Set(frozen.keys))
        #expect(Set(Vault.countedTables) == Set(frozen.keys.map(\.rawValue)))
        #expect(SyncRecordStore.keyColumn(.sessionSignature) == "session_id")
        #expect(SyncRecordStore.keyColumn(.diagnosis) == "id")
    }
}

extension RecordTableRegistryTests {
    /// The audit trail's per-patient query as it was written by hand before the registry
    /// (reviewed against docs/audit.md): the derived one must select the same ids.
    static let handWrittenPatientQuery = """
        SELECT ?1 \
        UNION SELECT id FROM clinical_session WHERE patient_id = ?1 \
        UNION SELECT d.id FROM diagnosis d JOIN clinical_session s ON s.id = d.session_id WHERE s.patient_id = ?1 \
        UNION SELECT t.id FROM attachment t JOIN clinical_session s ON s.id = t.session_id WHERE s.patient_id = ?1 \
        UNION SELECT x.id FROM session_addendum x JOIN clinical_session s ON s.id = x.session_id WHERE s.patient_id = ?1 \
        UNION SELECT id FROM medication WHERE patient_id = ?1 \
        UNION SELECT c.id FROM medication_schedule c JOIN medication m ON m.id = c.medication_id WHERE m.patient_id = ?1 \
        UNION SELECT id FROM dose_log WHERE patient_id = ?1 \
        UNION SELECT r.id FROM dose_log_revision r JOIN medication m ON m.id = r.medication_id WHERE m.patient_id = ?1 \
        UNION SELECT r.dose_log_id FROM dose_log_revision r JOIN medication m ON m.id = r.medication_id WHERE m.patient_id = ?1 \
        UNION SELECT id FROM medication_refill WHERE patient_id = ?1 \
        UNION SELECT id FROM medication_stock_adjustment WHERE patient_id = ?1
        """

    /// A query's SELECTs, each with its table aliases replaced by the tables' names
    /// (`x.id` of `diagnosis x` reads `diagnosis.id`), so that only what is selected from
    /// which table, joined how, is compared.
    static func selects(_ sql: String) -> Set<String> {
        Set(sql.components(separatedBy: "UNION").map { select in
            let words = select.split(whereSeparator: \.isWhitespace).map(String.init)
            var aliases: [String: String] = [:]
            var declarations: Set<Int> = []
            for index in words.indices.dropLast(2) where words[index] == "FROM" || words[index] == "JOIN" {
                let candidate = words[index + 2]
                if !["JOIN", "ON", "WHERE"].contains(candidate) {
                    aliases[candidate] = words[index + 1]
                    declarations.insert(index + 2)
                }
            }
            return words.indices.filter { !declarations.contains($0) }.map { index in
                let parts = words[index].split(separator: ".", maxSplits: 1).map(String.init)
                guard parts.count == 2, let table = aliases[parts[0]] else { return words[index] }
                return table + "." + parts[1]
            }.joined(separator: " ")
        })
    }

    @Test("The audit trail's per-patient query derived from the registry selects what the hand-written one did")
    func patientQueryMatchesHandWritten() {
        let derived = RecordTableRegistry.patientEntitiesSQL("?1")
        #expect(Self.selects(derived) == Self.selects(Self.handWrittenPatientQuery))
        #expect(Self.selects(derived).count == 12)
    }
}
