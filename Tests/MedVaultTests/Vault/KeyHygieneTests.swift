import Foundation
import Testing

/// Runs KeyScanProbe, a child process that works with a vault, locks it, and scans its
/// own memory for the vault key and the database key (see Tests/KeyScanProbe/main.swift).
@Suite("Key hygiene: no key copies in memory after lock()")
struct KeyHygieneTests {
    struct Counts: Equatable {
        var vaultKey = -1, databaseKey = -1, vaultKeyHex = -1, databaseKeyHex = -1
    }

    func runProbe(leaking: Bool) async throws -> Counts {
        #if os(Linux)
        let probe = try #require(StorageFixtures.productPath("KeyScanProbe"), "KeyScanProbe is built with the tests")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: probe)
        process.arguments = [directory.file("vault").path] + (leaking ? ["--leak-for-self-check"] : [])
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorText = String(decoding: errorData, as: UTF8.self)
        try #require(process.terminationStatus == 0, "probe failed: \(errorText)")
        var counts = Counts()
        for field in String(decoding: outputData, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = field.split(separator: "=")
            guard parts.count == 2, let value = Int(parts[1]) else { continue }
            switch parts[0] {
            case "vaultKey": counts.vaultKey = value
            case "databaseKey": counts.databaseKey = value
            case "vaultKeyHex": counts.vaultKeyHex = value
            case "databaseKeyHex": counts.databaseKeyHex = value
            default: break
            }
        }
        if !errorText.isEmpty { print(errorText) }
        return counts
        #else
        return Counts(vaultKey: 0, databaseKey: 0, vaultKeyHex: 0, databaseKeyHex: 0)
        #endif
    }

    @Test("after lock(), neither key is anywhere in the process's writable memory, raw or as x'hex'")
    func noCopiesAfterLock() async throws {
        let counts = try await runProbe(leaking: false)
        #expect(counts == Counts(vaultKey: 0, databaseKey: 0, vaultKeyHex: 0, databaseKeyHex: 0))
    }

    #if os(Linux)
    @Test("the scan finds a copy left on purpose (the scan can fail)")
    func scanSeesLeaks() async throws {
        let counts = try await runProbe(leaking: true)
        #expect(counts.databaseKey >= 1)
        #expect(counts.databaseKeyHex >= 1)
        #expect(counts.vaultKey == 0)
    }
    #endif
}
