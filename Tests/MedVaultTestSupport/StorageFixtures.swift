import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// Helpers shared by the storage tests.
package enum StorageFixtures {
    /// A fixed schema: one table of numbered notes.
    package static let notesMigrator = SchemaMigrator([
        .init("notes") { db in
            try db.executeScript("""
                CREATE TABLE note(n INTEGER PRIMARY KEY, body TEXT NOT NULL);
                """)
        },
    ])

    package static func randomKey() -> SecureBytes {
        SecureBytes.random(count: 32)
    }

    package static func hex(_ key: SecureBytes) -> String {
        (try? key.withUnsafeBytes { bytes in bytes.map { String(format: "%02x", $0) }.joined() }) ?? ""
    }

    package static func openNotes(_ url: URL, key: SecureBytes,
                                  mode: VaultDatabase.OpenMode = .createIfMissing) async throws -> VaultDatabase {
        try await VaultDatabase.open(at: url, key: key, mode: mode, migrator: notesMigrator)
    }

    package static func insertNote(_ pool: VaultDatabase, _ n: Int64, _ body: String) async throws {
        try await pool.write { db in
            try db.execute("INSERT INTO note(n, body) VALUES (?, ?)", [.integer(n), .text(body)])
        }
    }

    package static func noteNumbers(_ pool: VaultDatabase) async throws -> [Int64] {
        try await pool.read { db in
            try db.fetchAll("SELECT n FROM note ORDER BY n") { row in row.int64(at: 0) }
        }
    }

    package static func bytes(_ url: URL) -> Data? {
        try? Data(contentsOf: url)
    }

    /// A keyring file's key material: everything its header MAC covers and the MAC,
    /// without the audit record that version 2 keeps after it (it moves with the trail's
    /// head at each checkpoint, so "the keys did not change" compares this).
    package static func keyMaterial(_ url: URL) -> Data? {
        guard let bytes = bytes(url), bytes.count > 10 else { return nil }
        let trailing = 32 + (bytes[bytes.startIndex + 9] == 2 ? AuditAnchor.byteCount : 0)
        return bytes.count > trailing ? bytes.dropLast(trailing) : nil
    }

    /// Runs a command and returns its standard output and exit status.
    package static func run(_ executable: String, _ arguments: [String], input: String? = nil) async throws -> (output: String, status: Int32) {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let inputPipe = Pipe()
        process.standardInput = inputPipe
        let run = try await process.runCapturingOutput(mergingErrors: true) {
            if let input { inputPipe.fileHandleForWriting.write(Data(input.utf8)) }
            try inputPipe.fileHandleForWriting.close()
        }
        return (run.outputText, run.status)
    }

    /// The folder holding the test bundle and the package's executables.
    package static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Finds an executable of this package's build (CrashProbe, medvault, …).
    package static func productPath(_ name: String) -> String? {
        let candidates = [
            productsDirectory.appendingPathComponent(name),
            productsDirectory.deletingLastPathComponent().appendingPathComponent(name),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }?.path
    }

    package static func which(_ name: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
