import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Migration "shared diagnosis snapshots" (issue #36, item 6): each distinct ICD-11
/// snapshot stored once, `diagnosis` a view with the table's columns, and every rule of
/// the medical record still held, also against raw SQL on the new tables.
@Suite("Diagnoses: each ICD-11 snapshot stored once")
struct DiagnosisSnapshotTests {
    typealias F = ClinicalFixtures

    /// `F.snapshot` without its Spanish title: a snapshot of its own (NULL is a value here).
    static let withoutSpanish = ICD11Snapshot(code: F.snapshot.code, title: F.snapshot.title, titleEs: nil,
                                              uri: F.snapshot.uri, releaseVersion: F.snapshot.releaseVersion)
    /// `F.snapshot` from another release.
    static let laterRelease = ICD11Snapshot(code: F.snapshot.code, title: F.snapshot.title,
                                            titleEs: F.snapshot.titleEs, uri: F.snapshot.uri, releaseVersion: "2025-01")

    /// The table's insert, as MedVault ran it before the migration (and as raw SQL may).
    static let rawInsert = """
        INSERT INTO diagnosis (\(ClinicalRows.DiagnosisColumn.selection)) \
        VALUES (\(ClinicalRows.DiagnosisColumn.placeholders))
        """

    /// A pool over `url` brought up to MedVault's schema, or to the one just before the
    /// migration when `beforeSharing`.
    static func open(_ url: URL, key: SecureBytes, beforeSharing: Bool) async throws -> VaultDatabase {
        let all = MedVaultSchema.migrator.migrations
        let migrations = beforeSharing ? all.filter { $0.name != "shared diagnosis snapshots" } : all
        #expect(migrations.count == all.count - (beforeSharing ? 1 : 0))
        return try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing,
                                            migrator: SchemaMigrator(migrations))
    }

    /// The synced column names of `diagnosis` and every row's values, by id.
    static func dump(_ pool: VaultDatabase) async throws -> (columns: [String], rows: [[VaultValue]]) {
        try await pool.read { db in
            let columns = try SyncRecordStore.columns(of: .diagnosis, db)
            let rows = try db.fetchAll("SELECT \(columns.joined(separator: ", ")) FROM diagnosis ORDER BY id") { row in
                (0..<columns.count).map { row.value(at: Int32($0)) }
            }
            return (columns, rows)
        }
    }

    static func count(_ table: String, _ pool: VaultDatabase) async throws -> Int64 {
        try await pool.read { db in try db.fetchOne("SELECT count(*) FROM \(table)") { $0.int64(at: 0) } ?? -1 }
    }

    /// `count` diagnoses of `session`, cycling through `snapshots`, stamped as stored.
    static func diagnoses(_ count: Int, of session: ClinicalSession, _ snapshots: [ICD11Snapshot]) throws -> [Diagnosis] {
        try (0..<count).map { index in
            try SQLCipherDiagnosisRepository.stamped(
                Diagnosis(sessionID: session.id, snapshot: snapshots[index % snapshots.count],
                          severity: index % 3 == 0 ? .moderate : nil,
                          clinicalNotes: index % 2 == 0 ? "note \(index)" : nil,
                          diagnosedAt: F.now.addingTimeInterval(Double(index))),
                now: F.now)
        }
    }

    /// A new database at MedVault's schema with one patient and one session.
    static func oneSession() async throws -> (TemporaryVaultDatabase, SQLCipherClinicalRecords, ClinicalSession) {
        let database = try await TemporaryVaultDatabase.open()
        let records = SQLCipherClinicalRecords(pool: database.pool, clock: SteppingClock().recordClock)
        let patient = try await records.patients.create(F.patient())
        let session = try await records.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
        return (database, records, session)
    }

    static let fourSnapshots = [F.snapshot, F.otherSnapshot, withoutSpanish, laterRelease]

    @Test("The migration keeps every diagnosis exactly, column by column, and stores each distinct snapshot once")
    func migrationKeepsEveryDiagnosis() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("v.db")
            let key = StorageFixtures.randomKey()
            let old = try await Self.open(url, key: key, beforeSharing: true)
            let records = SQLCipherClinicalRecords(pool: old, clock: SteppingClock().recordClock)
            let patient = try await records.patients.create(F.patient())
            let session = try await records.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
            let written = try Self.diagnoses(60, of: session, Self.fourSnapshots)
            try await old.write { db in
                #expect(try db.fetchOne("SELECT type FROM sqlite_master WHERE name = 'diagnosis'") { $0.text(at: 0) }
                        == "table")
                for diagnosis in written {
                    try db.execute(Self.rawInsert, ClinicalRows.DiagnosisColumn.arguments(diagnosis))
                }
            }
            let before = try await Self.dump(old)
            await old.close()

            let new = try await Self.open(url, key: key, beforeSharing: false)
            let after = try await Self.dump(new)
            #expect(before.rows.count == 60)
            // The record state sync carries: the same columns, in the same order, and values.
            #expect(after.columns == before.columns)
            #expect(after.rows == before.rows)
            #expect(try await Self.count("icd11_snapshot", new) == 4)
            #expect(try await Self.count("diagnosis_row", new) == 60)
            let read = SQLCipherClinicalRecords(pool: new, clock: SteppingClock().recordClock).diagnoses
            for diagnosis in written { #expect(try await read.get(diagnosis.id) == diagnosis) }
            await new.close()
        }
    }

    @Test("The repository, raw SQL through the view and sync share one snapshot row each, and read back what they wrote")
    func everyInsertPathShares() async throws {
        let (database, records, session) = try await Self.oneSession()
        let pool = database.pool
        let created = try await records.diagnoses.create(
            Self.fourSnapshots.map { Diagnosis(sessionID: session.id, snapshot: $0, diagnosedAt: F.now) })
        #expect(try await Self.count("icd11_snapshot", pool) == 4)

        let raw = try Self.diagnoses(4, of: session, Self.fourSnapshots)
        let synced = try Self.diagnoses(4, of: session, Self.fourSnapshots.reversed())
        try await pool.write { db in
            for diagnosis in raw { try db.execute(Self.rawInsert, ClinicalRows.DiagnosisColumn.arguments(diagnosis)) }
            let columns = try SyncRecordStore.columns(of: .diagnosis, db)
            for diagnosis in synced {
                let values = ClinicalRows.DiagnosisColumn.arguments(diagnosis)
                let state = SyncRowState(columns: Dictionary(uniqueKeysWithValues: zip(
                    ClinicalRows.DiagnosisColumn.allCases.map(\.name), values.map(SyncColumnValue.init))))
                #expect(Set(state.columns.keys) == Set(columns))
                #expect(try SyncRecordStore.write(state, table: .diagnosis, id: diagnosis.id, operation: .insert,
                                                  origin: UUID(), db) == .inserted)
            }
        }
        #expect(try await Self.count("icd11_snapshot", pool) == 4)
        #expect(try await Self.count("diagnosis", pool) == 12)
        for diagnosis in created + raw + synced {
            #expect(try await records.diagnoses.get(diagnosis.id) == diagnosis)
        }
        await database.close()
    }

    @Test("A recorded snapshot cannot be changed or removed through its shared row, nor a diagnosis moved to another")
    func sharedRowsAreImmutable() async throws {
        let (database, records, session) = try await Self.oneSession()
        let pool = database.pool
        let created = try await records.diagnoses.create([
            Diagnosis(sessionID: session.id, snapshot: F.snapshot, diagnosedAt: F.now),
            Diagnosis(sessionID: session.id, snapshot: F.otherSnapshot, diagnosedAt: F.now),
        ])
        let immutable: [(String, [VaultValue])] = [
            // One statement would otherwise rewrite every diagnosis that recorded it.
            ("UPDATE icd11_snapshot SET title = ?", [.text(F.marker)]),
            ("UPDATE icd11_snapshot SET title = title", []),
            ("DELETE FROM icd11_snapshot", []),
            ("UPDATE diagnosis_row SET snapshot_id = (SELECT max(id) FROM icd11_snapshot)", []),
            ("UPDATE diagnosis_row SET session_id = session_id", []),
            ("UPDATE diagnosis_row SET diagnosed_at = diagnosed_at + 1", []),
            ("DELETE FROM diagnosis_row", []),
            ("DELETE FROM diagnosis", []),
            // A replace deletes without the delete trigger: refused before it starts.
            ("INSERT OR REPLACE INTO icd11_snapshot (id, release_version, code, uri, title) "
                + "VALUES ((SELECT min(id) FROM icd11_snapshot), ?, ?, ?, ?)",
             [.text(F.marker), .text(F.marker), .text(F.marker), .text(F.marker)]),
            ("INSERT OR REPLACE INTO icd11_snapshot (release_version, code, uri, title, title_es) "
                + "SELECT release_version, code, uri, title, title_es FROM icd11_snapshot", []),
        ]
        for (sql, arguments) in immutable {
            await ClinicalSQLTriggerTests.expectImmutable(pool, sql, arguments)
        }
        // Several refused columns: the first refusal is the table's (date and session).
        let mixed = await expectMedVaultError(.immutable) {
            try await pool.write { db in
                try db.execute("UPDATE diagnosis SET code = ?, session_id = session_id, severity = ?",
                               [.text(F.marker), .text("mild")])
            }
        }
        #expect(mixed?.reason.contains("session and date") == true)
        for diagnosis in created { #expect(try await records.diagnoses.get(diagnosis.id) == diagnosis) }
        #expect(try await Self.count("icd11_snapshot", pool) == 2)
        await database.close()
    }

    /// How a diagnosis insert can fail inside a transaction that goes on and commits.
    enum RefusedInsert: String, CaseIterable, Sendable {
        /// Sync: the session is missing, after the (new) snapshot was written.
        case syncedWithoutSession
        /// Sync: a required snapshot value is missing.
        case syncedWithoutCode
        /// Raw SQL through the view: the session is missing.
        case rawWithoutSession
    }

    @Test("A refused diagnosis leaves no snapshot behind, though its transaction goes on and commits",
          arguments: RefusedInsert.allCases)
    func refusedInsertLeavesNoSnapshot(_ path: RefusedInsert) async throws {
        let (database, _, session) = try await Self.oneSession()
        let pool = database.pool
        var diagnosis = try Self.diagnoses(1, of: session, [Self.laterRelease])[0]
        if path != .syncedWithoutCode { diagnosis.sessionID = UUID() }
        var columns = Dictionary(uniqueKeysWithValues: zip(
            ClinicalRows.DiagnosisColumn.allCases.map(\.name),
            ClinicalRows.DiagnosisColumn.arguments(diagnosis).map(SyncColumnValue.init)))
        if path == .syncedWithoutCode { columns["code"] = nil }
        let state = SyncRowState(columns: columns)
        let arguments = ClinicalRows.DiagnosisColumn.arguments(diagnosis)
        let id = diagnosis.id
        // As sync applies a page: a refused record is recorded, the rest commits.
        let refusal = try await pool.write { db -> MedVaultError? in
            do {
                switch path {
                case .syncedWithoutSession, .syncedWithoutCode:
                    try SyncRecordStore.write(state, table: .diagnosis, id: id, operation: .insert,
                                              origin: UUID(), db)
                case .rawWithoutSession:
                    try db.execute(Self.rawInsert, arguments)
                }
                return nil
            } catch let error as MedVaultError {
                return error
            }
        }
        let error = try #require(refusal)
        // A missing session is `notFound`, a missing required value `validation`: both in
        // the refusals sync records and goes past.
        #expect(error.code == (path == .syncedWithoutCode ? .validation : .notFound))
        #expect(!error.description.contains(Self.laterRelease.releaseVersion))
        #expect(try await Self.count("icd11_snapshot", pool) == 0)
        #expect(try await Self.count("diagnosis", pool) == 0)
        await database.close()
    }

    /// An app migration that makes its table depend on `diagnosis` before the migration.
    static func appDependency(_ kind: String) -> SchemaMigrator.Migration {
        .init("app:diagnosis notes") { db in
            switch kind {
            case "cascade":
                try db.executeScript("""
                    CREATE TABLE app_diagnosis_note (
                        id INTEGER PRIMARY KEY,
                        diagnosis_id BLOB NOT NULL REFERENCES diagnosis(id) ON DELETE CASCADE
                    );
                    """)
            default:
                try db.executeScript("CREATE INDEX app_diagnosis_by_code ON diagnosis(code);")
            }
        }
    }

    @Test("An app's foreign key or index on the diagnosis table stops the migration with nothing changed, its rows kept",
          arguments: ["cascade", "index"])
    func appDependencyIsRefused(kind: String) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("v.db")
            let key = StorageFixtures.randomKey()
            let before = MedVaultSchema.migrator.migrations.filter { $0.name != "shared diagnosis snapshots" }
            let old = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing,
                                                   migrator: SchemaMigrator(before + [Self.appDependency(kind)]))
            let records = SQLCipherClinicalRecords(pool: old, clock: SteppingClock().recordClock)
            let patient = try await records.patients.create(F.patient())
            let session = try await records.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
            let diagnosis = try Self.diagnoses(1, of: session, [F.snapshot])[0]
            try await old.write { db in
                try db.execute(Self.rawInsert, ClinicalRows.DiagnosisColumn.arguments(diagnosis))
                if kind == "cascade" {
                    try db.execute("INSERT INTO app_diagnosis_note (diagnosis_id) VALUES (?)", [diagnosis.id.vaultValue])
                }
            }
            await old.close()

            let all = MedVaultSchema.migrator.migrations + [Self.appDependency(kind)]
            await expectMedVaultError(.invalidArgument, field: "appMigrations") {
                try await VaultDatabase.open(at: url, key: key, mode: .openExisting, migrator: SchemaMigrator(all))
            }
            let reopened = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                        migrator: SchemaMigrator(before + [Self.appDependency(kind)]))
            let (type, diagnoses, notes) = try await reopened.read { db in
                (try db.fetchOne("SELECT type FROM sqlite_master WHERE name = 'diagnosis'") { $0.text(at: 0) },
                 try db.fetchOne("SELECT count(*) FROM diagnosis") { $0.int64(at: 0) },
                 kind == "cascade" ? try db.fetchOne("SELECT count(*) FROM app_diagnosis_note") { $0.int64(at: 0) } : 1)
            }
            #expect(type == "table")
            #expect(diagnoses == 1)
            #expect(notes == 1, "the app's row referencing the diagnosis is kept")
            await reopened.close()
        }
    }
}
