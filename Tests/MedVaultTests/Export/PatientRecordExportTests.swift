import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// The export document, its JSON form, the ID-prefix lookup and the private file writer.
@Suite("Patient record export")
struct PatientRecordExportTests {
    private func patient(_ id: UUID = UUID(), first: String = "José", last: String = "García Núñez") throws -> Patient {
        Patient(id: id, firstName: first, lastName: last, dateOfBirth: try CalendarDate(iso8601: "1984-03-07"))
    }

    // MARK: - ISO-8601 with milliseconds

    @Test("instants round-trip exactly as ISO-8601 UTC text with milliseconds", arguments: [
        Int64(0), 1, 999, 1_773_653_400_250, -1, -86_400_001, 253_402_300_799_999,
    ])
    func millisecondsRoundTrip(milliseconds: Int64) throws {
        let date = Date(millisecondsSince1970: milliseconds)
        let text = ISO8601Milliseconds.string(from: date)
        #expect(text.hasSuffix("Z"))
        #expect(ISO8601Milliseconds.date(from: text) == date)
    }

    @Test("known texts: fraction padded and truncated, offsets applied, garbage refused")
    func knownTexts() throws {
        #expect(ISO8601Milliseconds.string(from: Date(millisecondsSince1970: 1_773_653_400_250)) == "2026-03-16T09:30:00.250Z")
        #expect(ISO8601Milliseconds.string(from: Date(millisecondsSince1970: -1)) == "1969-12-31T23:59:59.999Z")
        #expect(ISO8601Milliseconds.date(from: "2026-03-16T09:30:00Z") == Date(millisecondsSince1970: 1_773_653_400_000))
        #expect(ISO8601Milliseconds.date(from: "2026-03-16T09:30:00.5Z") == Date(millisecondsSince1970: 1_773_653_400_500))
        #expect(ISO8601Milliseconds.date(from: "2026-03-16T09:30:00.123456Z") == Date(millisecondsSince1970: 1_773_653_400_123))
        #expect(ISO8601Milliseconds.date(from: "2026-03-16T10:30:00.000+01:00") == Date(millisecondsSince1970: 1_773_653_400_000))
        for bad in ["", "yesterday", "2026-03-16", "2026-03-16T09:30:00.Z", "2026-13-16T09:30:00Z"] {
            #expect(ISO8601Milliseconds.date(from: bad) == nil, "\(bad)")
        }
    }

    // MARK: - Document

    @Test("assemble reads the whole record from in-memory repositories, sessions oldest first; JSON round-trips")
    func assembleInMemory() async throws {
        let records = InMemoryClinicalRecords()
        let medications = InMemoryMedicationStore()
        let stored = try await records.patients.create(try patient())
        let base = Date(millisecondsSince1970: 1_770_000_000_123)
        for offset in 0..<5 {
            let session = try await records.sessions.create(ClinicalSession(
                patientID: stored.id, date: base.addingTimeInterval(Double(offset) * 86_400), status: .completed))
            try await records.diagnoses.create(Diagnosis(
                sessionID: session.id,
                snapshot: ICD11Snapshot(code: "6A70", title: "Single episode depressive disorder",
                                        uri: "http://id.who.int/icd/entity/578635574", releaseVersion: "2024-01"),
                diagnosedAt: session.date))
        }
        let medication = try await medications.create(Medication(
            patientID: stored.id, name: "Sertralina", dosage: Dosage(amount: 1, unit: .tablets),
            frequency: .asNeeded, startDate: try CalendarDate(iso8601: "2026-01-01")))
        _ = try await medications.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: base, status: .taken, takenAt: base))
        try await records.patients.deactivate(stored.id)

        let export = try await PatientRecordExport.assemble(
            patientID: stored.id, patients: records.patients, sessions: records.sessions,
            attachments: records.attachments, medications: medications, exportedAt: base)
        #expect(export.formatVersion == PatientRecordExport.currentFormatVersion)
        #expect(export.patient.deletedAt != nil, "an inactive patient is exported too")
        #expect(export.sessions.count == 5)
        #expect(export.sessions.map(\.session.date) == export.sessions.map(\.session.date).sorted())
        #expect(export.sessions.allSatisfy { $0.diagnoses.count == 1 })
        #expect(export.medications.first?.doseLogs.count == 1)

        let back = try PatientRecordExport(jsonData: try export.jsonData())
        #expect(back == export)
    }

    @Test("assemble: an unknown patient is notFound")
    func assembleUnknown() async throws {
        let records = InMemoryClinicalRecords()
        do {
            _ = try await PatientRecordExport.assemble(
                patientID: UUID(), patients: records.patients, sessions: records.sessions,
                attachments: records.attachments, medications: InMemoryMedicationStore(), exportedAt: Date())
            Issue.record("an unknown patient was exported")
        } catch let error as MedVaultError {
            #expect(error.code == .notFound)
        }
    }

    @Test("init(jsonData:) refuses other JSON and a newer format version")
    func decodeRefusals() throws {
        #expect(throws: MedVaultError(.invalidArgument, reason: "the data is not a MedVault patient record export")) {
            _ = try PatientRecordExport(jsonData: Data("{\"hello\": 1}".utf8))
        }
        var export = PatientRecordExport(exportedAt: Date(millisecondsSince1970: 0), patient: try patient(),
                                         sessions: [], medications: [])
        export.formatVersion = PatientRecordExport.currentFormatVersion + 1
        let data = try export.jsonData()
        do {
            _ = try PatientRecordExport(jsonData: data)
            Issue.record("a newer format was accepted")
        } catch let error as MedVaultError {
            #expect(error.code == .invalidArgument)
            #expect(error.field == "formatVersion")
        }
        let badDate = String(decoding: try PatientRecordExport(exportedAt: Date(), patient: try patient(),
                                                              sessions: [], medications: []).jsonData(), as: UTF8.self)
            .replacingOccurrences(of: #""exportedAt" : "[^"]*""#, with: #""exportedAt" : "soon""#, options: .regularExpression)
        #expect(throws: MedVaultError.self) { _ = try PatientRecordExport(jsonData: Data(badDate.utf8)) }
    }

    // MARK: - Identifier prefixes

    @Test("get(idOrPrefix:): whole id, unique prefix in any case, ambiguous, unknown, malformed")
    func idPrefix() async throws {
        let records = InMemoryClinicalRecords()
        let first = try #require(UUID(uuidString: "AAAA0000-0000-4000-8000-000000000001"))
        let second = try #require(UUID(uuidString: "AAAA1111-0000-4000-8000-000000000002"))
        try await records.patients.create(try patient(first))
        try await records.patients.create(try patient(second, first: "María"))
        try await records.patients.deactivate(second)

        #expect(try await records.patients.get(idOrPrefix: first.uuidString).id == first)
        #expect(try await records.patients.get(idOrPrefix: "aaaa0").id == first)
        #expect(try await records.patients.get(idOrPrefix: "AAAA1111-0").id == second, "inactive patients too")
        let cases: [(String, MedVaultError.Code)] = [
            ("aaaa", .invalidArgument), ("bbbb", .notFound), ("abc", .validation), ("xyz12345", .validation),
            (UUID().uuidString, .notFound),
        ]
        for (text, code) in cases {
            do {
                _ = try await records.patients.get(idOrPrefix: text)
                Issue.record("\(text) was accepted")
            } catch let error as MedVaultError {
                #expect(error.code == code, "\(text)")
                #expect(!error.description.contains(text), "the input is not echoed")
            }
        }
    }

    @Test("fullHistory reads every page, newest first")
    func fullHistoryPages() async throws {
        let records = InMemoryClinicalRecords()
        let stored = try await records.patients.create(try patient())
        for day in 0..<7 {
            try await records.sessions.create(ClinicalSession(
                patientID: stored.id, date: Date(millisecondsSince1970: Int64(day) * 86_400_000)))
        }
        let history = try await records.sessions.fullHistory(of: stored.id, pageSize: 3)
        #expect(history.count == 7)
        #expect(history.map(\.session.date) == history.map(\.session.date).sorted(by: >))
    }

    // MARK: - Private files

    @Test("PrivateFileWriter writes mode 0600 whatever the umask, and refuses a folder as destination")
    func privateFile() throws {
        try withTemporaryDirectorySync { directory in
            let url = directory.file("export.json")
            let previous = umask(0)
            defer { umask(previous) }
            try PrivateFileWriter.write(Data("{}".utf8), to: url)
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            #expect(try Data(contentsOf: url) == Data("{}".utf8))

            let folder = directory.file("folder")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            do {
                try PrivateFileWriter.write(Data(), to: folder)
                Issue.record("a folder was accepted as the output")
            } catch let error as MedVaultError {
                #expect(error.code == .permissionDenied)
                #expect(error.field == "output")
            }
            #expect(throws: MedVaultError.self) {
                try PrivateFileWriter.write(Data(), to: directory.file("missing/x.json"))
            }
        }
    }

    /// A synchronous variant of `withTemporaryDirectory`.
    private func withTemporaryDirectorySync(_ body: (TemporaryDirectory) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try body(directory)
    }
}
