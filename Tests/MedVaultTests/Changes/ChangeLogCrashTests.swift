import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A process killed while it writes leaves the log and the records consistent.
@Suite("Change log: SIGKILL during writes")
struct ChangeLogCrashTests {
    typealias F = ChangeFixtures

    @Test("A writer SIGKILLed mid-stream leaves every committed patient logged once and no entry without its patient",
          arguments: ["add-patients", "units"])
    func killedWriterLeavesLogConsistent(mode: String) async throws {
        try await withTemporaryDirectory { directory in
            let (reopened, printedLines) = try await F.reopenedAfterKilledWriter(mode, in: directory)
            let patients = try await F.ids(in: "patient", of: reopened)
            let entries = try await F.entries(reopened)
            #expect(!patients.isEmpty)
            let inserted = entries.filter { $0.table == .patient && $0.operation == .insert }.map(\.recordID)
            #expect(inserted.count == Set(inserted).count)
            #expect(Set(inserted) == Set(patients))
            // Every record an entry names exists (the probes insert patients, and units add a session and a diagnosis).
            let sessions = try await F.ids(in: "clinical_session", of: reopened)
            let loggedSessions = entries.filter { $0.table == .clinicalSession }.map(\.recordID)
            #expect(Set(loggedSessions) == Set(sessions) && loggedSessions.count == sessions.count)
            let diagnoses = try await F.ids(in: "diagnosis", of: reopened)
            let loggedDiagnoses = entries.filter { $0.table == .diagnosis }.map(\.recordID)
            #expect(Set(loggedDiagnoses) == Set(diagnoses) && loggedDiagnoses.count == diagnoses.count)
            #expect(entries.map(\.sequence) == (entries.isEmpty ? [] : Array(1...Int64(entries.count))))
            // Every line the child printed was committed and is logged.
            let printed = Set(printedLines.compactMap(UUID.init(uuidString:)))
            #expect(printed.isSubset(of: Set(inserted)))
            await reopened.lock()
        }
    }
}
