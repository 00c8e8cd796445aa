import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A vault (password "probe", fast KDF, a settable clock) with one patient, a
/// medication taken at 08:00 and 20:00 UTC with 30 tablets in stock, and markers in the
/// patient, a session and a diagnosis that the journal must never hold.
struct DoseJournalFixture {
    static let markers = ["ZZJOURNALPATIENT", "ZZJOURNALSESSION", "ZZJOURNALDIAGNOSIS"]
    static let start = Date(millisecondsSince1970: 1_780_300_800_000)  // 2026-06-01T08:00:00Z

    let folder: URL
    let clock: MedicationTestClock
    let options: Vault.Options
    let patient: Patient
    let medication: Medication

    /// The dose instants of the first `count` planned doses from ``start``.
    func doses(_ count: Int) -> [Date] {
        (0..<count).map { Self.start.addingTimeInterval(Double($0) * 12 * 3_600) }
    }

    static func make(in folder: URL, stock: MedicationQuantity = 30) async throws -> (DoseJournalFixture, Vault) {
        let clock = MedicationTestClock(start.addingTimeInterval(-3_600))
        let options = Vault.Options(kdf: .fastForTestsOnly,
                                    passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0),
                                    clock: clock.recordClock)
        let vault = try await Vault.create(at: folder, password: try Password("probe"), options: options).vault
        let patient = try await vault.patients.create(ClinicalFixtures.patient(markers[0], "Ruiz"))
        let session = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: start, notes: markers[1]))
        _ = try await vault.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: ClinicalFixtures.snapshot,
                                                       clinicalNotes: markers[2], diagnosedAt: start))
        let medication = try await vault.medications.create(Medication(
            patientID: patient.id, name: "Sertralina", dosage: Dosage(amount: 1, unit: .tablets),
            frequency: .specificTimes([TimeOfDay(hour: 8), TimeOfDay(hour: 20)]),
            startDate: try CalendarDate(iso8601: "2026-05-01"),
            inventory: MedicationInventory(current: stock, minimum: 5)))
        return (DoseJournalFixture(folder: folder, clock: clock, options: options, patient: patient,
                                   medication: medication), vault)
    }

    func open() async throws -> Vault {
        try await Vault.open(at: folder, password: try Password("probe"), options: options)
    }

    /// The stock and the adherence of June 1–3 in GMT, as the vault reads them.
    static func outcome(_ vault: Vault, _ medication: Medication) async throws -> (MedicationQuantity?, AdherenceStats) {
        let stock = try await vault.medications.get(medication.id).inventory?.current
        let adherence = try await vault.medications.adherence(
            forMedication: medication.id, from: try CalendarDate(iso8601: "2026-06-01"),
            through: try CalendarDate(iso8601: "2026-06-03"), in: .gmt)
        return (stock, adherence)
    }

    /// Every text and blob of every table of the journal, decrypted with its key.
    static func journalContents(_ folder: URL, key: DoseJournalKey) async throws -> Data {
        let db = try await VaultDatabase.open(at: try VaultLayout(folder: folder).doseJournal(for: key), key: key.secret,
                                              mode: .openExisting, migrator: DoseJournalSchema.migrator)
        let contents = try await db.read { db in
            var all = Data()
            let tables = try db.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.text(at: 0) }
            for table in tables {
                try db.forEachRow("SELECT * FROM \(table)") { row in
                    for column in 0..<row.columnCount where !row.isNull(at: column) {
                        all.append(contentsOf: row.blob(at: column))
                    }
                    return true
                }
            }
            return all
        }
        await db.close()
        return contents
    }
}
