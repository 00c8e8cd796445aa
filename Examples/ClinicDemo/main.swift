// A minimal MedVault demo: creates an encrypted database in a throwaway folder,
// writes a record, closes it, reopens it from disk and reads the record back.
// (The full clinic demo arrives with the clinical-records repositories.)
import Foundation
import MedVault
import MedVaultKeys

let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("medvault-demo-\(UUID().uuidString)", isDirectory: true)
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let url = folder.appendingPathComponent("clinic.medvault")

let key = SecureBytes.random(count: 32)
let migrator = SchemaMigrator([
    .init(version: 1, name: "notes") { db in
        try db.executeScript("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);")
    },
])

let pool = try await DatabasePool.open(at: url, key: key, mode: .createIfMissing, migrator: migrator)
try await pool.write { db in
    try db.execute("INSERT INTO note(body) VALUES (?)", [.text("Primera sesión con José Núñez")])
}
await pool.close()

let onDisk = try Data(contentsOf: url)
print("Database file: \(onDisk.count) bytes, plaintext visible: \(onDisk.range(of: Data("Núñez".utf8)) != nil)")

let reopened = try await DatabasePool.open(at: url, key: key, mode: .openExisting, migrator: migrator)
let notes = try await reopened.read { db in
    try db.fetchAll("SELECT body FROM note") { row in row.text(at: 0) }
}
await reopened.close()
print("Read back after reopening: \(notes)")
