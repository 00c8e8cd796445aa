// A child process for the crash-safety tests; the tests kill it with SIGKILL.
//
//   CrashProbe commit <database path> <64 hex digits of the key>
//       Commits numbered notes one transaction at a time and prints each number to
//       standard output only after its commit returned, until it is killed.
//
//   CrashProbe rotate <vault folder> <phase>
//       Opens the vault (password "probe", fast test KDF) and rotates its database
//       key, killing itself with SIGKILL when the rotation reports <phase>:
//       pendingKeyRecorded, copying (a third of the way), verifying or databaseReplaced.
//
//   CrashProbe rotate-filling-disk <vault folder> <filler file>
//       Creates a vault (password "probe", fast test KDF) with 2,000 patients and rotates
//       its database key;
//       at the first copy progress past 0 it fills the disk, writing <filler file> until
//       the file system refuses. Prints "rotated", or "error <code>: <reason>".
//
//   CrashProbe journal-log <vault folder> <hex journal key> <medication id> <ms,ms,…>
//   CrashProbe journal-merge <vault folder> <now: milliseconds since 1970>
//       See DoseJournalProbe.swift: an extension logging doses with the journal key only,
//       and a vault opening (merging the journal) that the test kills.
//
//   CrashProbe add-patients <vault folder>
//       Opens the vault (password "probe", fast test KDF) and creates patients one at a
//       time, printing each new patient's id only after its create returned, until killed.
//
//   CrashProbe backup <vault folder> <destination> <phase>
//       Opens the vault (password "probe", fast test KDF) and backs it up to
//       <destination>, killing itself with SIGKILL when the backup reports <phase>:
//       copying (the first report past 0), verifying or finished.
//
//   CrashProbe restore <backup folder> <vault folder> <phase>
//       Restores the backup (password "probe") to <vault folder>, killing itself with
//       SIGKILL when the restore reports <phase>: copying (past 0) or verifying.
//
//   CrashProbe import <vault folder> <json file>
//       Opens the vault (password "probe", fast test KDF), reads the export documents and
//       imports them, killing itself with SIGKILL inside the import's transaction once
//       half of the documents are written; prints "done" if the import ever returns.
//
//   CrashProbe unit-hold <vault folder>
//       Opens the vault (password "probe", fast test KDF) and, inside one unit of work
//       (`vault.write`), creates a patient, a session and a diagnosis, prints their ids
//       on one line and waits inside the unit, uncommitted, until killed.
//
//   CrashProbe units <vault folder>
//       Opens the vault (password "probe", fast test KDF) and commits units of work of a
//       patient, a session and a diagnosis, printing the patient's id only after its
//       unit committed, until killed.
//
//   CrashProbe hold <vault folder>
//       Opens the vault (password "probe", fast test KDF), prints "open", and keeps it
//       open until standard input closes; then locks it and prints "locked".
//
//   CrashProbe stall-writes <vault folder>
//       See CooperativeStall.swift: 8 writes waiting for another process's write lock,
//       while a task of this process ticks every 10 ms.
//
//   CrashProbe exit-racing-openssl <vault folder>
//       Opens the vault (password "probe", fast test KDF), creates a patient and locks;
//       then starts threads that each draw random bytes from OpenSSL (the libcrypto
//       SQLCipher loaded, found with dlsym) and end, and calls exit(0) while they do.
//       OpenSSL's exit-time cleanup, had it been registered, would walk their
//       thread-local state while they free it (a SIGSEGV at exit, about one run in three).
//
//   CrashProbe sync-loop <vault folder> <server state file>
//       Opens the vault (password "probe", fast test KDF) and, until killed, creates a
//       patient with a session, prints "created <patient id>" once it committed, syncs
//       through an in-memory server saved in <server state file>, and prints "synced"
//       (see SyncLoop.swift).
//
//   CrashProbe sync-clone <vault folder> <server state file>
//       Opens a joined vault (password "probe", fast test KDF), prints "opened", syncs
//       once through the in-memory server saved in <server state file> (pages of 100,
//       1,000 envelopes a transaction),
//       and prints "synced" (see SyncClone.swift).
//
//   CrashProbe sync-attachment <vault folder> <server state file>
//       Opens the vault (password "probe", fast test KDF), prints "opened", syncs once
//       through the in-memory server saved in <server state file> with small push and
//       pull limits, and prints "synced" (see SyncAttachment.swift).
//
//   CrashProbe medication-fixture <vault folder> <expected json>
//       Creates the medication fixture vault of the migration test (password "probe",
//       fast test KDF, fixed clock) and writes what it read back to <expected json>
//       (see MedicationFixture.swift). Not a crash probe: a generator kept here because
//       this executable already links the whole library.
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

let arguments = CommandLine.arguments

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("CrashProbe: \(message)\n".utf8))
    exit(2)
}

func commitLoop(database: String, hexKey: String) async throws {
    let hex = Array(hexKey.utf8)
    guard hex.count == 64 else { fail("the key must be 64 hex digits") }
    let key = SecureBytes(count: 32) { buffer in
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
        for index in 0..<32 {
            buffer[index] = nibble(hex[2 * index]) << 4 | nibble(hex[2 * index + 1])
        }
    }
    let migrator = SchemaMigrator([
        .init("notes") { db in
            try db.executeScript("CREATE TABLE note(n INTEGER PRIMARY KEY, body TEXT NOT NULL);")
        },
    ])
    let pool = try await VaultDatabase.open(at: URL(fileURLWithPath: database), key: key,
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
}

func rotateAndDie(folder: String, phase: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    try await vault.rotateDatabaseKey { progress in
        let reached: Bool
        switch progress.phase {
        case .pendingKeyRecorded: reached = phase == "pendingKeyRecorded"
        case .copying: reached = phase == "copying" && progress.fractionCopied >= 0.33
        case .verifying: reached = phase == "verifying"
        case .databaseReplaced: reached = phase == "databaseReplaced"
        case .finished: reached = false
        }
        if reached { kill(getpid(), SIGKILL) }
    }
    fail("the rotation finished without reaching phase \(phase)")
}

func rotateFillingDisk(folder: String, filler: String) async throws {
    let vault = try await Vault.create(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                       options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))).vault
    // About 1 MiB of records: the copy is written in many steps, not one.
    _ = try await vault.patients.create((0..<2_000).map { number in
        Patient(firstName: "Disk", lastName: "Filler \(number)", dateOfBirth: try! CalendarDate(iso8601: "1980-01-01"),
                address: String(repeating: "Calle Mayor ", count: 40))
    })
    let filled = LockedFlag()
    do {
        try await vault.rotateDatabaseKey { progress in
            guard progress.phase == .copying, progress.fractionCopied > 0, filled.setOnce() else { return }
            let descriptor = open(filler, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
            guard descriptor >= 0 else { fail("cannot create the filler") }
            let block = [UInt8](repeating: 0, count: 65_536)
            // Whole blocks, then single bytes: the file system ends with no byte free.
            while write(descriptor, block, block.count) > 0 {}
            while write(descriptor, block, 1) > 0 {}
            close(descriptor)
        }
        FileHandle.standardOutput.write(Data("rotated\n".utf8))
    } catch let error as MedVaultError {
        FileHandle.standardOutput.write(Data("error \(error.code.rawValue): \(error.reason)\n".utf8))
    }
    await vault.lock()
}

/// A flag set once across threads (the rotation's progress is called off the main task).
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    /// Sets the flag; whether this call was the one that set it.
    func setOnce() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if set { return false }
        set = true
        return true
    }
}

func addPatients(folder: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    var number = 0
    while true {
        number += 1
        let patient = try await vault.patients.create(
            Patient(firstName: "Probe", lastName: "Writer \(number)", dateOfBirth: try CalendarDate(iso8601: "1980-01-01")))
        FileHandle.standardOutput.write(Data("\(patient.id.uuidString)\n".utf8))
    }
}

/// Whether `progress` is the moment to die for `phase`.
func reached(_ progress: BackupProgress, _ phase: String) -> Bool {
    switch progress.phase {
    case .copying: phase == "copying" && progress.fractionCopied > 0
    case .verifying: phase == "verifying"
    case .finished: phase == "finished"
    }
}

func backupAndDie(folder: String, destination: String, phase: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    try await vault.backup(to: URL(fileURLWithPath: destination)) { progress in
        if reached(progress, phase) { kill(getpid(), SIGKILL) }
    }
    fail("the backup finished without reaching phase \(phase)")
}

func restoreAndDie(backup: String, folder: String, phase: String) async throws {
    try await Vault.restore(from: URL(fileURLWithPath: backup), to: URL(fileURLWithPath: folder),
                            password: try Password("probe"), options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))) { progress in
        if reached(progress, phase) { kill(getpid(), SIGKILL) }
    }
    fail("the restore finished without reaching phase \(phase)")
}

func importRecords(folder: String, file: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    let documents = try PatientRecordExport.documents(jsonData: try Data(contentsOf: URL(fileURLWithPath: file)))
    let half = documents.count / 2
    try await vault.importRecords(documents) { written in
        if written == half { kill(getpid(), SIGKILL) }
    }
    FileHandle.standardOutput.write(Data("done\n".utf8))
    await vault.lock()
}

/// The patient, session and diagnosis of unit `number`, created in `tx`.
func writeUnit(_ tx: VaultTransaction, number: Int) throws -> (UUID, UUID, UUID) {
    let patient = try tx.patients.create(
        Patient(firstName: "Probe", lastName: "Unit \(number)", dateOfBirth: try CalendarDate(iso8601: "1980-01-01")))
    let session = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
    let snapshot = ICD11Snapshot(code: "6A70", title: "Single episode depressive disorder", titleEs: nil,
                                 uri: "http://id.who.int/icd/entity/1563440232", releaseVersion: "2024-01")
    let diagnosis = try tx.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: snapshot, diagnosedAt: Date()))
    return (patient.id, session.id, diagnosis.id)
}

func holdUnit(folder: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    try await vault.write { tx in
        let (patient, session, diagnosis) = try writeUnit(tx, number: 1)
        FileHandle.standardOutput.write(Data("\(patient) \(session) \(diagnosis)\n".utf8))
        while true { sleep(1) }
    }
}

func commitUnits(folder: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    var number = 0
    while true {
        number += 1
        let unit = number
        let (patient, _, _) = try await vault.write { tx in try writeUnit(tx, number: unit) }
        FileHandle.standardOutput.write(Data("\(patient.uuidString)\n".utf8))
    }
}

func exitRacingOpenSSL(folder: String) async throws -> Never {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    _ = try await vault.patients.create(
        Patient(firstName: "Probe", lastName: "Exit", dateOfBirth: try CalendarDate(iso8601: "1980-01-01")))
    await vault.lock()
    typealias RandomBytes = @convention(c) (UnsafeMutablePointer<UInt8>?, Int32) -> Int32
    guard let process = dlopen(nil, RTLD_LAZY), let symbol = dlsym(process, "RAND_bytes") else {
        fail("SQLCipher's libcrypto is not loaded in this process")
    }
    let randomBytes = unsafeBitCast(symbol, to: RandomBytes.self)
    for _ in 0..<2 {
        Thread.detachNewThread {
            while true {
                Thread.detachNewThread {
                    var bytes = [UInt8](repeating: 0, count: 16)
                    _ = randomBytes(&bytes, 16)
                }
            }
        }
    }
    usleep(2_000)
    exit(0)
}

func hold(folder: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    FileHandle.standardOutput.write(Data("open\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
    await vault.lock()
    FileHandle.standardOutput.write(Data("locked\n".utf8))
}

do {
    switch arguments.count >= 2 ? arguments[1] : "" {
    case "sync-loop" where arguments.count == 4:
        try await syncLoop(folder: arguments[2], serverFile: arguments[3])
    case "sync-clone" where arguments.count == 4:
        try await syncClone(folder: arguments[2], serverFile: arguments[3])
    case "sync-attachment" where arguments.count == 4 || arguments.count == 5:
        try await syncAttachment(folder: arguments[2], serverFile: arguments[3],
                                 pause: arguments.count == 5 ? arguments[4] : nil)
    case "seal-steps" where arguments.count == 3:
        try await sealSteps(folder: arguments[2])
    case "add-patients" where arguments.count == 3:
        try await addPatients(folder: arguments[2])
    case "unit-hold" where arguments.count == 3:
        try await holdUnit(folder: arguments[2])
    case "units" where arguments.count == 3:
        try await commitUnits(folder: arguments[2])
    case "medication-fixture" where arguments.count == 4:
        try await writeMedicationFixture(folder: arguments[2], expectationPath: arguments[3])
    case "exit-racing-openssl" where arguments.count == 3:
        try await exitRacingOpenSSL(folder: arguments[2])
    case "hold" where arguments.count == 3:
        try await hold(folder: arguments[2])
    case "stall-writes" where arguments.count == 3:
        try await stallWrites(folder: arguments[2])
    case "commit" where arguments.count == 4:
        try await commitLoop(database: arguments[2], hexKey: arguments[3])
    case "backup" where arguments.count == 5:
        try await backupAndDie(folder: arguments[2], destination: arguments[3], phase: arguments[4])
    case "restore" where arguments.count == 5:
        try await restoreAndDie(backup: arguments[2], folder: arguments[3], phase: arguments[4])
    case "import" where arguments.count == 4:
        try await importRecords(folder: arguments[2], file: arguments[3])
    case "rotate-filling-disk" where arguments.count == 4:
        try await rotateFillingDisk(folder: arguments[2], filler: arguments[3])
    case "journal-log" where arguments.count == 6:
        try await journalLog(folder: arguments[2], hexKey: arguments[3], medication: arguments[4], instants: arguments[5])
    case "journal-merge" where arguments.count == 4:
        try await journalMerge(folder: arguments[2], now: Date(millisecondsSince1970: Int64(arguments[3])!))
    case "rotate" where arguments.count == 4:
        try await rotateAndDie(folder: arguments[2], phase: arguments[3])
    case "http-wait" where arguments.count == 3:
        try await httpWait(baseURL: arguments[2])
    default:
        fail("usage: CrashProbe commit <database> <hex key> | rotate <vault folder> <phase> | rotate-filling-disk <vault folder> <filler file> | add-patients <vault folder> | unit-hold <vault folder> | units <vault folder> | hold <vault folder> | stall-writes <vault folder> | exit-racing-openssl <vault folder> | medication-fixture <vault folder> <expected json> | backup <vault folder> <destination> <phase> | restore <backup> <vault folder> <phase> | import <vault folder> <json file> | http-wait <base URL>")
    }
} catch {
    fail("\(error)")
}
