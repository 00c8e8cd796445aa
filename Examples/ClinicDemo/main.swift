// The clinic demo (`make demo`): a psychologist's vault end to end, through the
// library's public API only. Creates a throwaway vault with the real Argon2id
// parameters, records patients, sessions and ICD-11 diagnoses, deactivates a patient,
// locks the vault, reopens it from disk, and prints what a practice app would show.
import Foundation
import MedVault

/// Runs the demo in `folder`; returns whether the files were free of plaintext.
func runDemo(in folder: URL) async throws -> Bool {
    let now = ISO8601Milliseconds.date(from: DemoData.now) ?? Date()
    let options = Vault.Options(clock: .fixed(now)) // default Argon2id: 64 MiB, t = 3, p = 4
    let kdf = options.kdf
    let timer = ContinuousClock()

    print("MedVault clinic demo — \(DemoOutput.dayAndTime(now)) \(DemoData.timeZone)")

    // 1. Create the vault. The recovery key is shown once; MedVault keeps no copy.
    var started = timer.now
    let created = try await Vault.create(at: folder, password: Password(DemoData.password), options: options)
    print("Created a vault in \(DemoOutput.seconds(timer.now - started)) "
          + "(Argon2id m=\(kdf.memoryKiB / 1024) MiB, t=\(kdf.iterations), p=\(kdf.parallelism))")
    print("Recovery key: \(created.recoveryKey.formatted)")

    // 2. Record the practice: professional, patients, sessions, diagnoses.
    var vault = created.vault
    let professional = try await vault.professional.save(DemoData.professional)
    var sessionCount = 0
    var diagnosisCount = 0
    for seed in DemoData.patients {
        let patient = try await vault.patients.create(seed.patient)
        for sessionSeed in seed.sessions {
            let date = ISO8601Milliseconds.date(from: sessionSeed.date) ?? now
            let session = try await vault.sessions.create(ClinicalSession(
                patientID: patient.id, date: date, type: sessionSeed.type, status: .completed,
                chiefComplaint: sessionSeed.chiefComplaint))
            sessionCount += 1
            for diagnosis in sessionSeed.diagnoses {
                try await vault.diagnoses.create(Diagnosis(
                    sessionID: session.id, snapshot: diagnosis.snapshot, diagnosisType: diagnosis.type,
                    severity: diagnosis.severity, diagnosedAt: date))
                diagnosisCount += 1
            }
        }
        if seed.deactivate {
            try await vault.patients.deactivate(patient.id)
        }
    }
    print("Recorded \(professional.fullName)'s practice: \(DemoData.patients.count) patients, "
          + "\(sessionCount) sessions, \(diagnosisCount) ICD-11 diagnoses")

    // 3. Lock (keys zeroed, database closed) and look at the files: no plaintext.
    await vault.lock()
    let names = DemoData.patients.flatMap { [$0.patient.firstName, $0.patient.lastName] }
    let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
    var plaintextFound = false
    for file in files {
        let bytes = try Data(contentsOf: file)
        plaintextFound = plaintextFound || names.contains { bytes.range(of: Data($0.utf8)) != nil }
    }
    let databaseSize = (try FileManager.default.attributesOfItem(atPath: vault.layout.database.path)[.size] as? Int) ?? 0
    print("Locked. \(vault.layout.database.lastPathComponent): \(DemoOutput.grouped(databaseSize)) bytes, "
          + (plaintextFound ? "PLAINTEXT FOUND" : "no plaintext found") + " (\(files.count) files scanned for patient names)")

    // 4. Reopen from disk with the password.
    started = timer.now
    vault = try await Vault.open(at: folder, password: Password(DemoData.password), options: options)
    print("Reopened from disk with the password in \(DemoOutput.seconds(timer.now - started))")

    // 5. What a practice app shows.
    let active = try await vault.patients.list(filter: .active, limit: 50).patients
    DemoOutput.title("Active patients (\(active.count))")
    DemoOutput.rows(active.map { [$0.lastName + ", " + $0.firstName, "born " + $0.dateOfBirth.iso8601] })

    let inactive = try await vault.patients.list(filter: .inactive, limit: 50).patients
    DemoOutput.title("Inactive patients (\(inactive.count))")
    DemoOutput.rows(inactive.map { patient in
        [patient.lastName + ", " + patient.firstName, "born " + patient.dateOfBirth.iso8601,
         "deactivated " + (patient.deletedAt.map(DemoOutput.day) ?? "?")]
    })

    let found = try await vault.patients.search(DemoData.search)
    DemoOutput.title("Search \"\(DemoData.search)\" (accents and case ignored): \(found.count) found")
    DemoOutput.rows(found.map { [$0.fullName, "born " + $0.dateOfBirth.iso8601] })

    do {
        let patient = try await vault.patients.get(DemoData.patients[DemoData.historyPatientIndex].patient.id)
        let history = try await vault.sessions.fullHistory(of: patient.id).reversed()
        DemoOutput.title("History of \(patient.fullName), oldest first")
        for entry in history {
            let session = entry.session
            DemoOutput.rows([[DemoOutput.dayAndTime(session.date), DemoOutput.sessionType(session.type),
                              "\(session.durationMinutes) min", session.chiefComplaint ?? ""]])
            for diagnosis in entry.diagnoses {
                let detail = [diagnosis.diagnosisType.rawValue, diagnosis.severity?.rawValue].compactMap { $0 }
                print("      \(diagnosis.snapshot.code)  \(diagnosis.snapshot.title) (\(detail.joined(separator: ", ")); "
                      + "ICD-11 \(diagnosis.snapshot.releaseVersion))")
            }
        }
    }

    await vault.lock()
    return !plaintextFound
}

let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("medvault-clinic-demo-\(UUID().uuidString)", isDirectory: true)
var succeeded = false
do {
    succeeded = try await runDemo(in: folder)
} catch {
    print("The demo failed: \(error)")
}
try? FileManager.default.removeItem(at: folder)
print("")
print("Removed the throwaway vault.")
exit(succeeded ? 0 : 1)
