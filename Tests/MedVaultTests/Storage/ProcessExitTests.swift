import Foundation
@testable import MedVault
import MedVaultTestSupport
import Testing

/// A process that used a vault exits cleanly even while threads that used OpenSSL (the
/// crypto library under SQLCipher here) are still ending.
///
/// OpenSSL 3.0 registers an exit-time cleanup that walks every thread's OpenSSL state
/// without a lock; a thread ending at that moment frees its state under it and the
/// process dies of SIGSEGV inside `exit()` (seen in CI: `medvault init` crashed after
/// printing its recovery key). MedVault asks OpenSSL to skip that cleanup before the
/// first connection opens. Without that, about a third of these runs crash.
@Suite("Process exit while threads that used OpenSSL end", .serialized)
struct ProcessExitTests {
    @Test("MedVault asked OpenSSL to skip its exit-time cleanup")
    func cleanupSkipped() async throws {
        try await withTemporaryDirectory { dir in
            // Any connection asks; this one makes sure the question was asked here.
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 1).vault
            await vault.lock()
            #if os(Linux)
            // SQLCipher runs on OpenSSL on Linux (Debian's libsqlcipher links libcrypto 3).
            #expect(DatabaseConnection.openSSLExitCleanupSkipped)
            #endif
        }
    }

    @Test("exit(0) while threads that drew random bytes from OpenSSL end: every run exits 0 (30 runs)")
    func exitWhileThreadsEnd() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 1).vault
            await vault.lock()
            var failures: [String] = []
            for run in 0..<30 {
                // The Swift runtime's backtracer can hang when several threads fault at
                // once; a crash must end the child, not stall the test.
                let child = try ProbeChild(["exit-racing-openssl", dir.file("vault").path],
                                           outputURL: dir.file("probe-\(run).txt"),
                                           environment: ["SWIFT_BACKTRACE": "enable=no"])
                try await child.waitForExit(timeoutSeconds: 30)
                if child.process.terminationReason != .exit || child.process.terminationStatus != 0 {
                    failures.append("run \(run): \(child.process.terminationReason == .exit ? "exit" : "signal") \(child.process.terminationStatus)")
                }
            }
            #expect(failures == [], "the probe did not exit cleanly")
        }
    }
}
