import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import Testing

/// A process killed while it writes leaves the log and the records consistent.
@Suite("Change log: SIGKILL during writes")
struct ChangeLogCrashTests {
    typealias F = ChangeFixtures

    @Test("A writer SIGKILLed mid-stream leaves every committed patient logged once and no entry without its patient",
          arguments: ["add-patients", "units"])
    func killedWriterLeavesLogConsistent(mode: String) async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let folder = vault.layout.folder
            await vault.lock()
            let child = try ProbeChild([mode, folder.path], outputURL: directory.file("probe.out"))
            #expect(try await child.waitForLines(5))
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
            child.sigkill()
            try await child.waitForExit()
            let reopened = try await Vault.open(at: folder, password: try Password("probe"), options: VaultFixtures.options)
            let patients = try await reopened.database.read { db in
                try db.fetchAll("SELECT id FROM patient") { try UUID(row: $0, column: 0) }
            }
            let entries = try await F.entries(reopened)
            #expect(!patients.isEmpty)
            let inserted = entries.filter { $0.table == .patient && $0.operation == .insert }.map(\.recordID)
            #expect(inserted.count == Set(inserted).count)
            #expect(Set(inserted) == Set(patients))
            // Every record an entry names exists (the probes insert patients, and units add a session and a diagnosis).
            let sessions = try await reopened.database.read { db in
                try db.fetchAll("SELECT id FROM clinical_session") { try UUID(row: $0, column: 0) }
            }
            let loggedSessions = entries.filter { $0.table == .clinicalSession }.map(\.recordID)
            #expect(Set(loggedSessions) == Set(sessions) && loggedSessions.count == sessions.count)
            let diagnoses = try await reopened.database.read { db in
                try db.fetchAll("SELECT id FROM diagnosis") { try UUID(row: $0, column: 0) }
            }
            let loggedDiagnoses = entries.filter { $0.table == .diagnosis }.map(\.recordID)
            #expect(Set(loggedDiagnoses) == Set(diagnoses) && loggedDiagnoses.count == diagnoses.count)
            #expect(entries.map(\.sequence) == (entries.isEmpty ? [] : Array(1...Int64(entries.count))))
            // Every line the child printed was committed and is logged.
            let printed = Set(child.lines.compactMap(UUID.init(uuidString:)))
            #expect(printed.isSubset(of: Set(inserted)))
            await reopened.lock()
        }
    }
}
