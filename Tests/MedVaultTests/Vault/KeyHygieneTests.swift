import Foundation
import Testing

/// Runs KeyScanProbe, a child process that works with a vault, locks it, and scans its
/// own memory for the vault key and the database key (see Tests/KeyScanProbe/main.swift).
@Suite("Key hygiene: no key copies in memory after lock()")
struct KeyHygieneTests {
    /// Copies found, by key and form (`vaultKey`, `vaultKeyHex`, `databaseKey`, …).
    typealias Counts = [String: Int]

    static let names = ["vaultKey", "databaseKey", "rotatedKey"].flatMap { [$0, $0 + "Hex"] }

    func runProbe(leaking: Bool) async throws -> Counts {
        #if os(Linux)
        let probe = try #require(StorageFixtures.productPath("KeyScanProbe"), "KeyScanProbe is built with the tests")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: probe)
        process.arguments = [directory.file("vault").path] + (leaking ? ["--leak-for-self-check"] : [])
        let run = try await process.runCapturingOutput()
        let errorText = run.errorText
        try #require(run.status == 0, "probe failed: \(errorText)")
        var counts = Counts()
        for field in run.outputText.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = field.split(separator: "=")
            guard parts.count == 2, let value = Int(parts[1]) else { continue }
            counts[String(parts[0])] = value
        }
        if !errorText.isEmpty { print(errorText) }
        return counts
        #else
        return Dictionary(uniqueKeysWithValues: Self.names.map { ($0, 0) })
        #endif
    }

    @Test("after lock(), no key is anywhere in the process's writable memory, raw or as x'hex'")
    func noCopiesAfterLock() async throws {
        let counts = try await runProbe(leaking: false)
        #expect(counts == Dictionary(uniqueKeysWithValues: Self.names.map { ($0, 0) }))
    }

    #if os(Linux)
    @Test("the scan finds a copy left on purpose (the scan can fail)")
    func scanSeesLeaks() async throws {
        let counts = try await runProbe(leaking: true)
        #expect(counts["databaseKey", default: 0] >= 1)
        #expect(counts["databaseKeyHex", default: 0] >= 1)
        #expect(counts["vaultKey"] == 0)
    }
    #endif
}
