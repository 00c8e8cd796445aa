// A child process for the crash-safety tests.
//
// Usage: CrashProbe <database path> <64 hex digits of the key>
//
// Commits numbered notes one transaction at a time and prints each number to
// standard output only after its commit returned, until it is killed. The test
// kills it with SIGKILL at a random moment and checks that every printed number
// is in the database.
import Foundation
import MedVault
import MedVaultKeys

let arguments = CommandLine.arguments
guard arguments.count == 3, arguments[2].count == 64 else {
    FileHandle.standardError.write(Data("usage: CrashProbe <database> <hex key>\n".utf8))
    exit(2)
}
let hex = Array(arguments[2].utf8)
let key = SecureBytes(count: 32) { buffer in
    func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
    for index in 0..<32 {
        buffer[index] = nibble(hex[2 * index]) << 4 | nibble(hex[2 * index + 1])
    }
}
let migrator = SchemaMigrator([
    .init(version: 1, name: "notes") { db in
        try db.executeScript("CREATE TABLE note(n INTEGER PRIMARY KEY, body TEXT NOT NULL);")
    },
])
do {
    let pool = try await DatabasePool.open(at: URL(fileURLWithPath: arguments[1]), key: key,
                                           mode: .createIfMissing, migrator: migrator)
    var next = try await pool.read { db in
        try db.fetchOne("SELECT coalesce(max(n), 0) FROM note") { row in row.int64(at: 0) } ?? 0
    } + 1
    let body = String(repeating: "payload ", count: 64)
    while true {
        let n = next
        try await pool.write { db in
            try db.execute("INSERT INTO note(n, body) VALUES (?, ?)", [.integer(n), .text(body)])
            // A second statement makes each transaction span more than one page write.
            try db.execute("UPDATE note SET body = body WHERE n = ?", [.integer(n / 2)])
        }
        // An unbuffered write: the number is out of the process once this returns.
        FileHandle.standardOutput.write(Data("\(n)\n".utf8))
        next += 1
    }
} catch {
    FileHandle.standardError.write(Data("CrashProbe: \(error)\n".utf8))
    exit(1)
}
