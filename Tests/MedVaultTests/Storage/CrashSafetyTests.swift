import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Database pool: crash safety")
struct CrashSafetyTests {
    @Test("A writer killed with SIGKILL at random moments loses no committed transaction (25 rounds)")
    func sigkillLosesNoCommit() async throws {
        let probe = try #require(StorageFixtures.productPath("CrashProbe"), "CrashProbe is built with the tests")
        try await withTemporaryDirectory { dir in
            let url = dir.file("crash.db")
            let key = StorageFixtures.randomKey()
            var reported: Set<Int64> = []
            for _ in 0..<25 {
                let process = TestProcess()
                process.executableURL = URL(fileURLWithPath: probe)
                process.arguments = ["commit", url.path, StorageFixtures.hex(key)]
                let outputURL = dir.file("probe-output.txt")
                _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
                let output = try FileHandle(forWritingTo: outputURL)
                process.standardOutput = output
                try process.run()
                // Kill at a random moment once the probe is committing, however slow the machine.
                let started = Date()
                while (StorageFixtures.bytes(outputURL)?.isEmpty ?? true) && Date().timeIntervalSince(started) < 30 {
                    try await Task.sleep(for: .milliseconds(5))
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                try output.close()
                #expect(process.terminationReason == .uncaughtSignal)
                let text = String(decoding: StorageFixtures.bytes(outputURL) ?? Data(), as: UTF8.self)
                // Only whole lines: the last one may have been cut by the kill.
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                reported.formUnion(lines.compactMap { Int64($0) })

                let pool = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
                let (integrity, stored) = try await pool.read { db in
                    (try db.fetchOne("PRAGMA integrity_check") { row in row.text(at: 0) },
                     try db.fetchAll("SELECT n FROM note") { row in row.int64(at: 0) })
                }
                await pool.close()
                #expect(integrity == "ok")
                let missing = reported.subtracting(stored)
                #expect(missing.isEmpty, "committed transactions lost: \(missing.sorted().prefix(5))")
            }
            #expect(reported.count > 25, "the probe committed too little to test anything")
        }
    }
}
