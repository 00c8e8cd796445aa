import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// `CrashProbe journal-log <vault folder> <hex journal key> <medication id> <ms,ms,…>`: an
/// extension holding only the dose journal key. Logs each dose taken and prints
/// "logged <ms>" after each; then tries what the key must not allow and prints one line
/// per attempt: "vault refused <code>" (the vault's database under the journal key),
/// then "<table> refused <code>" for patient, clinical_session and diagnosis read
/// through the journal file.
func journalLog(folder: String, hexKey: String, medication: String, instants: String) async throws {
    guard let medicationID = UUID(uuidString: medication) else { fail("not a medication id") }
    let key = try DoseJournalKey(SecureBytes(copying: hexBytes(hexKey)))
    let url = URL(fileURLWithPath: folder)
    let journal = try await DoseJournal.open(in: url, key: key)
    for text in instants.split(separator: ",") {
        guard let ms = Int64(text) else { fail("not an instant") }
        try await journal.logTaken(medicationID: medicationID, doseAt: Date(millisecondsSince1970: ms),
                                   takenAt: Date(millisecondsSince1970: ms + 60_000))
        emit("logged \(ms)")
    }
    await journal.close()
    do {
        let vault = try await VaultDatabase.open(at: VaultLayout(folder: url).database, key: key.secret,
                                                 mode: .openExisting)
        await vault.close()
        emit("vault opened")
    } catch let error as MedVaultError {
        emit("vault refused \(error.code.rawValue)")
    }
    // The journal's one migration, by name, so the file opens as it is.
    let raw = try await VaultDatabase.open(at: try VaultLayout(folder: url).doseJournal(for: key), key: key.secret, mode: .openExisting,
                                           migrator: SchemaMigrator([.init("dose journal", apply: { _ in })]))
    for table in ["patient", "clinical_session", "diagnosis"] {
        do {
            _ = try await raw.read { db in try db.fetchAll("SELECT * FROM \(table)") { $0.isNull(at: 0) } }
            emit("\(table) read")
        } catch let error as MedVaultError {
            emit("\(table) refused \(error.code.rawValue)")
        }
    }
    await raw.close()
    key.wipe()
}

/// `CrashProbe journal-merge <vault folder> <now ms>`: prints "opening", opens the vault
/// (password "probe", fast test KDF, its clock fixed at `now`: the merge's new plan starts
/// there, as the test's own vault would write it), which merges the dose journal, and
/// prints "merged"; the test kills it anywhere in between.
func journalMerge(folder: String, now: Date) async throws {
    emit("opening")
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly,
                                                            passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0),
                                                            clock: .fixed(now)))
    emit("merged")
    await vault.lock()
}

/// Writes a line to standard output at once (no buffering: the test may kill us next).
private func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

private func hexBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex),
          let byte = UInt8(hex[index..<next], radix: 16) {
        bytes.append(byte)
        index = next
    }
    return bytes
}
