import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Vault: import of exported records")
struct RecordImportTests {
    /// A source vault with every kind of record: patients (one updated, one inactive),
    /// completed and cancelled sessions, diagnoses, medications (with a strength) with
    /// schedules, dose logs (one corrected, one voided) and a refill.
    private func richVault(at folder: URL) async throws -> Vault {
        let vault = try await Vault.create(at: folder, password: try Password(BackupFixtures.password),
                                           options: VaultFixtures.options).vault
        let base = Date(millisecondsSince1970: 1_770_000_000_123)
        for n in 0..<4 {
            var patient = try await vault.patients.create(Patient(
                firstName: "Nombre \(n)", lastName: "Núñez \(n)", dateOfBirth: try CalendarDate(iso8601: "1984-03-07"),
                biologicalSex: .female, nationalId: "ID-\(n)", email: "p\(n)@example.com", phoneNumber: "+34 600 000 00\(n)",
                address: "Calle \(n)"))
            if n == 1 {
                patient.address = "Otra calle"
                patient = try await vault.patients.update(patient)
            }
            for offset in 0..<3 {
                var session = try await vault.sessions.create(ClinicalSession(
                    patientID: patient.id, date: base.addingTimeInterval(Double(offset) * 86_400), type: .video,
                    durationMinutes: 45, notes: "notas \(offset)", chiefComplaint: "motivo", treatmentPlan: "plan"))
                if offset == 0 {
                    session.status = .completed
                    session = try await vault.sessions.update(session)
                }
                if offset == 2 { session = try await vault.sessions.cancel(session.id) }
                try await vault.diagnoses.create(Diagnosis(
                    sessionID: session.id,
                    snapshot: ICD11Snapshot(code: "6A70", title: "Single episode depressive disorder",
                                            uri: "http://id.who.int/icd/entity/578635574", releaseVersion: "2024-01"),
                    severity: .moderate, clinicalNotes: "notas clínicas", diagnosedAt: session.date))
            }
            let medication = try await vault.medications.create(Medication(
                patientID: patient.id, name: "Sertralina", genericName: "sertraline", dosage: Dosage(amount: 1, unit: .tablets),
                strength: MedicationStrength(amount: 50, unit: .mg), frequency: .asNeeded, instructions: "con comida", startDate: try CalendarDate(iso8601: "2026-01-01")))
            _ = try await vault.medications.schedules.create(MedicationSchedule(
                medicationID: medication.id, times: [TimeOfDay(hour: 8, minute: 30, label: "desayuno")],
                daysOfWeek: [.monday, .friday], timeZoneIdentifier: "Europe/Madrid"))
            _ = try await vault.medications.doseLogs.create(DoseLog(
                medicationID: medication.id, scheduledAt: base, status: .taken, takenAt: base.addingTimeInterval(60)))
            let corrected = try await vault.medications.doseLogs.create(DoseLog(
                medicationID: medication.id, scheduledAt: base.addingTimeInterval(3600), status: .skipped))
            try await vault.medications.doseLogs.correct(
                corrected.log.id, with: DoseLogCorrection(status: .taken, takenAt: base.addingTimeInterval(3700),
                                                          amount: 0.5, reason: "motivo"), expectedVersion: 1)
            let voided = try await vault.medications.doseLogs.create(DoseLog(
                medicationID: medication.id, scheduledAt: base.addingTimeInterval(7200), status: .missed))
            try await vault.medications.doseLogs.void(voided.log.id, reason: "error", expectedVersion: 1)
            try await vault.medications.refills.create(MedicationRefill(
                medicationID: medication.id, quantity: 28, date: try CalendarDate(iso8601: "2026-02-01"),
                expirationDate: try CalendarDate(iso8601: "2027-02-28"), notes: "receta"))
            if n == 3 { _ = try await vault.patients.deactivate(patient.id) }
        }
        return vault
    }

    /// The documents with one export date, so two exports of equal records compare equal.
    private func normalized(_ documents: [PatientRecordExport]) -> [PatientRecordExport] {
        documents.map { document in
            var copy = document
            copy.exportedAt = Date(millisecondsSince1970: 0)
            return copy
        }
    }

    private func emptyVault(at folder: URL) async throws -> Vault {
        try await Vault.create(at: folder, password: try Password(BackupFixtures.password), options: VaultFixtures.options).vault
    }

    @Test("Export → import into a fresh vault reproduces every record field by field (ids, stamps, versions, deactivation), and the imported patients are searchable")
    func roundTripFieldByField() async throws {
        try await withTemporaryDirectory { dir in
            let source = try await richVault(at: dir.file("source"))
            let documents = try await source.exportAllRecords()
            #expect(documents.count == 4)
            #expect(documents.contains { $0.patient.deletedAt != nil })
            #expect(documents.contains { $0.patient.version == 2 })
            let target = try await emptyVault(at: dir.file("target"))
            // Through the JSON form, as the CLI does.
            let decoded = try PatientRecordExport.documents(jsonData: try PatientRecordExport.jsonData(of: documents))
            let progress = ImportProgressLog()
            let report = try await target.importRecords(decoded) { progress.append($0) }
            #expect(progress.values == [1, 2, 3, 4])
            #expect(report.patients == 4 && report.sessions == 12 && report.diagnoses == 12)
            #expect(report.medications == 4 && report.schedules == 4 && report.doseLogs == 8 && report.attachmentsSkipped == 0)
            // The corrections' history and the refills travel with the medications.
            for entry in documents.flatMap(\.medications) {
                // Two revisions of two logs: recorded in the same millisecond, they are ordered by
                // log id (the order every device agrees on), so their order here is not fixed.
                #expect(entry.doseLogRevisions.count == 2)
                #expect(Set(entry.doseLogRevisions.map(\.kind)) == [.correction, .void])
                #expect(entry.refills.count == 1 && entry.medication.strength?.amount == 50)
                #expect(entry.medication.inventory?.current == 28)
            }
            let imported = try await target.exportAllRecords()
            #expect(normalized(imported) == normalized(documents))
            #expect(try await target.patients.count() == 3, "the inactive patient stays inactive")
            #expect(try await target.patients.search("Núñez 2").map(\.id) == [documents.first { $0.patient.lastName == "Núñez 2" }!.patient.id])
            #expect(try await target.verify().problemsBesidesTestKDF == [])
            // The imported records keep their versions: an update with the exported version works.
            var patient = try #require(imported.first { $0.patient.isActive }).patient
            patient.address = "Nueva"
            #expect(try await target.patients.update(patient).version == patient.version + 1)
            await source.lock()
            await target.lock()
        }
    }

    @Test("Importing a record already in the vault is refused with duplicate and writes nothing, not even the other documents")
    func duplicatesAreRefused() async throws {
        try await withTemporaryDirectory { dir in
            let source = try await richVault(at: dir.file("source"))
            let documents = try await source.exportAllRecords()
            let target = try await emptyVault(at: dir.file("target"))
            try await target.importRecords([documents[0]])
            let before = try await target.info().recordCounts
            let error = await #expect(throws: MedVaultError.self) {
                try await target.importRecords([documents[1], documents[0]])
            }
            #expect(error?.code == .duplicate && error?.field == "id")
            #expect(try await target.info().recordCounts == before)
            // A session already present under a new patient document is a duplicate too.
            var moved = documents[0]
            let newPatient = UUID()
            moved.patient = Patient(id: newPatient, firstName: "Otro", lastName: "Paciente",
                                    dateOfBirth: try CalendarDate(iso8601: "1990-01-01"))
            moved.patient.version = 1
            moved.sessions = moved.sessions.map { entry in
                var entry = entry
                entry.session.patientID = newPatient
                return entry
            }
            moved.medications = []
            let sessionDuplicate = await #expect(throws: MedVaultError.self) { try await target.importRecords([moved]) }
            #expect(sessionDuplicate?.code == .duplicate)
            #expect(try await target.info().recordCounts == before)
            await source.lock()
            await target.lock()
        }
    }

    @Test("Damaged documents are refused with typed errors naming the field, and nothing is written")
    func damagedInputIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let source = try await richVault(at: dir.file("source"))
            let document = try #require(try await source.exportAllRecords().first)
            let target = try await emptyVault(at: dir.file("target"))
            func damaged(_ change: (inout PatientRecordExport) -> Void) -> PatientRecordExport {
                var copy = document
                change(&copy)
                return copy
            }
            let cases: [(String, [PatientRecordExport], MedVaultError.Code, String?)] = [
                ("version 0", [damaged { $0.patient.version = 0 }], .validation, "version"),
                ("updated before created", [damaged { $0.patient.updatedAt = $0.patient.createdAt.addingTimeInterval(-1) }],
                 .validation, "updatedAt"),
                ("session of another patient", [damaged { $0.sessions[0].session.patientID = UUID() }], .validation, "patientID"),
                ("diagnosis of another session", [damaged { $0.sessions[0].diagnoses[0].sessionID = UUID() }], .validation, "sessionID"),
                ("dose log of another medication", [damaged { $0.medications[0].doseLogs[0].medicationID = UUID() }],
                 .validation, "medicationID"),
                ("revision of another medication",
                 [damaged { $0.medications[0].doseLogRevisions[0].previous.medicationID = UUID() }], .validation, "medicationID"),
                ("revision reason with a control character",
                 [damaged { $0.medications[0].doseLogRevisions[0].reason = "Núñez\u{0}" }], .validation, "reason"),
                ("refill of another medication", [damaged { $0.medications[0].refills[0].medicationID = UUID() }],
                 .validation, "medicationID"),
                ("refill of nothing", [damaged { $0.medications[0].refills[0].quantity = .zero }], .validation, "quantity"),
                ("empty first name", [damaged { $0.patient.firstName = "" }], .validation, "firstName"),
                ("newer format", [damaged { $0.formatVersion = 99 }], .invalidArgument, "formatVersion"),
                ("patient updated in 2999", [damaged { $0.patient.updatedAt = Self.year2999 }], .validation, "updatedAt"),
                ("session created in 2999", [damaged {
                    $0.sessions[0].session.createdAt = Self.year2999
                    $0.sessions[0].session.updatedAt = Self.year2999
                }], .validation, "updatedAt"),
                ("patient deactivated in 2999", [damaged { $0.patient.deletedAt = Self.year2999 }], .validation, "deletedAt"),
                ("listed twice", [document, document], .duplicate, "id"),
            ]
            for (name, documents, code, field) in cases {
                let error = await #expect(throws: MedVaultError.self, "\(name) was imported") {
                    try await target.importRecords(documents)
                }
                #expect(error?.code == code && error?.field == field, "\(name): \(String(describing: error))")
                #expect(!String(describing: error).contains("Núñez"), "\(name): the error shows a field value")
            }
            #expect(try await target.info().recordCounts.values.allSatisfy { $0 == 0 })
            #expect(throws: MedVaultError.self) { _ = try PatientRecordExport.documents(jsonData: Data("{\"patient\": 1}".utf8)) }
            await source.lock()
            await target.lock()
        }
    }

    static let year2999 = Date(timeIntervalSince1970: 32_503_680_000)

    @Test("Documents are read strictly: a key this build does not know, a key twice in one object, and the nil UUID are refused; a null optional key is accepted")
    func strictDocuments() async throws {
        try await withTemporaryDirectory { dir in
            let source = try await richVault(at: dir.file("source"))
            let document = try #require(try await source.exportAllRecords().first)
            await source.lock()
            let json = String(decoding: try document.jsonData(), as: UTF8.self)
            try #require(json.first == "{")
            #expect(try PatientRecordExport.documents(jsonData: Data(json.utf8)) == [document])
            func edited(_ from: String, _ to: String) -> Data {
                Data(json.replacingOccurrences(of: from, with: to).utf8)
            }
            func prefixed(_ members: String) -> Data { Data(("{" + members + ", " + json.dropFirst()).utf8) }
            // Absent optionals written as null are what other encoders emit: accepted.
            let withNull = edited("\"firstName\"", "\"middleName\" : null, \"firstName\"")
            #expect(try PatientRecordExport.documents(jsonData: withNull) == [document])
            let refused: [(String, Data, String)] = [
                ("an unknown key in the patient", edited("\"firstName\"", "\"mood\" : \"sad\", \"firstName\""), "patient.mood"),
                ("an unknown top-level key", prefixed("\"extra\": [1]"), "extra"),
                ("a key twice", prefixed("\"formatVersion\": 1"), "formatVersion"),
                ("a key twice, the first escaped", edited("\"firstName\"", "\"first\\u004eame\" : \"Eva\", \"firstName\""),
                 "patient.firstName"),
            ]
            for (name, data, path) in refused {
                let error = #expect(throws: MedVaultError.self, "\(name) was read") {
                    _ = try PatientRecordExport.documents(jsonData: data)
                }
                #expect(error?.code == .invalidArgument, "\(name): \(String(describing: error))")
                #expect(error?.reason.contains(path) == true, "\(name): \(String(describing: error))")
                #expect(!String(describing: error).contains("sad") && !String(describing: error).contains("Eva"),
                        "\(name): the error shows a value")
            }
            // The nil UUID as the patient's identifier (and its records' references).
            let nilID = edited(document.patient.id.uuidString, "00000000-0000-0000-0000-000000000000")
            let documents = try PatientRecordExport.documents(jsonData: nilID)
            let error = #expect(throws: MedVaultError.self) {
                try PatientRecordExport.checkImportable(documents, at: Date())
            }
            #expect(error?.code == .validation && error?.field == "id", "\(String(describing: error))")
        }
    }

    @Test("An import killed with SIGKILL leaves the target unchanged: all or nothing, never part")
    func killedImportLeavesTargetUnchanged() async throws {
        try await withTemporaryDirectory { dir in
            let documents = (0..<1_500).map { n in
                let id = UUID()
                var patient = Patient(id: id, firstName: "Importado \(n)", lastName: "Apellido",
                                      dateOfBirth: try! CalendarDate(iso8601: "1970-01-01"))
                patient.createdAt = Date(millisecondsSince1970: 1_700_000_000_000)
                patient.updatedAt = patient.createdAt
                patient.version = 1
                var session = ClinicalSession(patientID: id, date: patient.createdAt, notes: String(repeating: "n", count: 500))
                session.createdAt = patient.createdAt
                session.updatedAt = patient.createdAt
                session.version = 1
                return PatientRecordExport(exportedAt: patient.createdAt, patient: patient,
                                           sessions: [.init(session: session, diagnoses: [], attachments: [])], medications: [])
            }
            try PatientRecordExport.jsonData(of: documents).write(to: dir.file("import.json"))
            let vault = try await emptyVault(at: dir.file("vault"))
            try await VaultFixtures.insertRawPatients(vault, count: 3)
            await vault.lock()
            let child = try ProbeChild(["import", dir.file("vault").path, dir.file("import.json").path],
                                       outputURL: dir.file("import.txt"))
            try await child.waitForExit(timeoutSeconds: 120)
            #expect(child.process.terminationReason == .uncaughtSignal && child.process.terminationStatus == SIGKILL,
                    "the probe was not killed inside the import")
            #expect(!child.lines.contains("done"))
            let reopened = try await BackupFixtures.open(dir.file("vault"))
            let count = try await VaultFixtures.patientCount(reopened)
            #expect(count == 3, "the killed import left \(count - 3) of 1500 patients")
            #expect(try await reopened.verify().problemsBesidesTestKDF == [])
            // The same import then succeeds whole.
            let report = try await reopened.importRecords(documents)
            #expect(report.patients == 1_500)
            #expect(try await VaultFixtures.patientCount(reopened) == 1_503)
            await reopened.lock()
        }
    }
}

/// The values a progress callback reported.
final class ImportProgressLog: @unchecked Sendable {
    // Safety of @unchecked Sendable: `recorded` is read and written only under `lock`.
    private let lock = NSLock()
    private var recorded: [Int] = []

    func append(_ value: Int) { lock.withLock { recorded.append(value) } }
    var values: [Int] { lock.withLock { recorded } }
}
