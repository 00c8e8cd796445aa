import Foundation
import MedVault

/// W1's database file by b-tree (each table and index), issue #36 item 6: where the
/// bytes above the plain schema's go.
///
/// Debian's SQLCipher has no `dbstat`, so the vault's database is exported decrypted
/// (`sqlcipher_export`, synthetic benchmark data only) into the benchmark's temporary
/// folder, and Python's own SQLite, which has `dbstat`, reads it. The copy has no
/// 48-byte page reserve and no free pages: its total is a little under the file's.
enum FileBreakdown {
    /// Bytes per b-tree of the open `vault`'s database, largest first, or `nil` (with
    /// the reason logged) when the copy fails or Python's SQLite cannot read `dbstat`.
    static func btrees(of vault: Vault, context: BenchmarkContext) async throws -> [(name: String, bytes: Double)]? {
        let copy = context.directory.appendingPathComponent("w1-breakdown.db")
        try? FileManager.default.removeItem(at: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        // The vault's connection opens files without SQLITE_OPEN_CREATE; an empty file
        // is a new database to SQLite.
        guard FileManager.default.createFile(atPath: copy.path, contents: nil) else {
            throw BenchmarkError("W1: could not create \(copy.path)")
        }
        let path = copy.path.replacingOccurrences(of: "'", with: "''")
        do {
            try await vault.database.writeWithoutTransaction { db in
                try db.executeScript("ATTACH DATABASE '\(path)' AS breakdown KEY ''")
                defer { try? db.executeScript("DETACH DATABASE breakdown") }
                try db.executeScript("SELECT sqlcipher_export('breakdown')")
            }
        } catch {
            context.log("W1: no file breakdown: the decrypted copy failed (\(error))")
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, copy.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            context.log("W1: no file breakdown: python3's sqlite3 could not read dbstat")
            return nil
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t")
            guard fields.count == 2, let bytes = Double(fields[1]) else { return nil }
            return (String(fields[0]), bytes)
        }
    }

    /// Prints `name<TAB>bytes` per b-tree of the SQLite file `argv[1]`, largest first.
    private static let script = """
        import sqlite3, sys
        db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
        for name, size in db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"):
            print(f"{name}\\t{size}")
        """
}
