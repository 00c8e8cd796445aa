// GRDBCoexistence <empty folder> grdb-first|medvault-first
//
// GRDB (the system SQLite) and MedVault (SQLCipher) in one process: GRDB writes and
// reads a plain database, MedVault creates, reopens and reads a vault, in the order
// given, then GRDB reads again. Exits 0 and prints one line when every step held;
// `make grdb-coexistence` then reads the plain database with the `sqlite3` shell and
// scans the vault's files for the patient's name.
import Foundation
import GRDB
import MedVault

let arguments = CommandLine.arguments
guard arguments.count == 3, ["grdb-first", "medvault-first"].contains(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: GRDBCoexistence <folder> grdb-first|medvault-first\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[1])

/// The app's own data, in a plain SQLite database through GRDB.
func grdbWritesAndReads() throws -> Int {
    let queue = try DatabaseQueue(path: folder.appendingPathComponent("app.sqlite").path)
    try queue.write { db in
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try db.execute(sql: "INSERT INTO note (body) VALUES (?)", arguments: ["coexistence note"])
    }
    return try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note") } ?? 0
}

/// A vault created, locked, reopened and read.
func medVaultCreatesReopensAndReads() async throws {
    let password = try Password("coexistence password")
    let vaultFolder = folder.appendingPathComponent("vault")
    let options = Vault.Options(kdf: .fastForTestsOnly)
    let created = try await Vault.create(at: vaultFolder, password: password, options: options)
    let patient = try await created.vault.patients.create(
        Patient(firstName: "Zyxcoexistmarker", lastName: "Núñez", dateOfBirth: try CalendarDate(iso8601: "1984-03-07")))
    await created.vault.lock()
    let reopened = try await Vault.open(at: vaultFolder, password: password, options: options)
    let read = try await reopened.patients.get(patient.id)
    await reopened.lock()
    guard read.firstName == "Zyxcoexistmarker" else {
        throw MedVaultError(.corrupted, reason: "the reopened vault did not return the patient written")
    }
}

do {
    var notes = 0
    if arguments[2] == "grdb-first" {
        notes = try grdbWritesAndReads()
        try await medVaultCreatesReopensAndReads()
    } else {
        try await medVaultCreatesReopensAndReads()
        notes = try grdbWritesAndReads()
    }
    notes = try grdbWritesAndReads()
    guard notes == 2 else { throw MedVaultError(.corrupted, reason: "GRDB counted \(notes) notes, not 2") }
    // The compile-time half: both APIs side by side, every name unambiguous.
    _ = try grdbSide()
    _ = try await records()
    print("GRDB and MedVault in one process (\(arguments[2])): GRDB wrote and read 2 notes; a vault was created, reopened and read")
} catch {
    FileHandle.standardError.write(Data("GRDBCoexistence failed: \(error)\n".utf8))
    exit(1)
}
