import Foundation
import MedVaultCore
import Testing

/// Text that could reshape a terminal or a report — ESC sequences, line breaks, other
/// control characters, bidi overrides — is refused in single-line fields by both
/// backends, naming the field; notes keep newlines and tabs.
@Suite("Conformance: hostile text in record fields")
struct HostileTextConformanceTests {
    typealias F = ClinicalFixtures

    /// Each is refused in a single-line field.
    static let hostile: [String] = [
        "Ana\u{1B}[31m", "Ana\nID        Forged", "Ana\r", "Ana\tRuiz", "Ana\u{7F}", "Ana\u{85}", "Ana\u{9B}31m",
        "Ana\u{202E}zuiR", "Ana\u{2066}x\u{2069}", "Ana\u{200F}", "Ana\u{200E}", "Ana\u{061C}", "Ana\u{0}",
    ]

    static let patientFields: [(field: String, change: @Sendable (inout Patient, String) -> Void)] = [
        ("firstName", { $0.firstName = $1 }),
        ("lastName", { $0.lastName = $1 }),
        ("nationalId", { $0.nationalId = $1 }),
        ("email", { $0.email = "ana" + $1.dropFirst(3) + "@example.org" }),
        ("phoneNumber", { $0.phoneNumber = "600" + $1.dropFirst(3) + "123" }),
        ("address", { $0.address = "Calle " + $1 }),
    ]

    @Test(arguments: ClinicalBackend.all)
    func patientFieldsRefuseControlAndBidi(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let stored = try await repos.patients.create(F.patient("Ana", "Ruiz", nationalId: "X1", email: "a@b.org"))
        for (field, change) in Self.patientFields {
            for text in Self.hostile {
                var draft = F.patient()
                change(&draft, text)
                await expectMedVaultError(.validation, field: field) { try await repos.patients.create(draft) }
                var edited = stored
                change(&edited, text)
                await expectMedVaultError(.validation, field: field) { try await repos.patients.update(edited) }
            }
        }
        #expect(try await repos.patients.count() == 1)
        #expect(try await repos.patients.get(stored.id) == stored)
    }

    @Test(arguments: ClinicalBackend.all)
    func professionalFieldsRefuseControlAndBidi(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let fields: [(String, @Sendable (inout Professional) -> Void)] = [
            ("fullName", { $0.fullName = "Dra. \u{1B}]0;owned\u{7}" }),
            ("licenseNumber", { $0.licenseNumber = "M-1\u{202E}" }),
            ("specialty", { $0.specialty = "Psicología\nclínica" }),
        ]
        for (field, change) in fields {
            var draft = Professional(fullName: "Dra. Ruiz", licenseNumber: "M-1", specialty: "Psicología")
            change(&draft)
            await expectMedVaultError(.validation, field: field) { try await repos.professional.save(draft) }
        }
        #expect(try await repos.professional.get() == nil)
    }

    @Test(arguments: ClinicalBackend.all)
    func notesKeepLinesAndTabsButNoOtherControls(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let patient = try await repos.patients.create(F.patient())
        let notes = "Primera línea\n\tsegunda línea\r\nעברית \u{200F}(RTL)"
        let session = try await repos.sessions.create(ClinicalSession(
            patientID: patient.id, date: F.now, notes: notes, chiefComplaint: "Ánimo\tbajo"))
        #expect(try await repos.sessions.get(session.id).notes == notes)
        for text in ["Nota \u{1B}[2J", "Nota \u{0}", "Nota \u{9B}"] {
            await expectMedVaultError(.validation, field: "notes") {
                try await repos.sessions.create(ClinicalSession(patientID: patient.id, date: F.now, notes: text))
            }
            await expectMedVaultError(.validation, field: "treatmentPlan") {
                try await repos.sessions.create(ClinicalSession(patientID: patient.id, date: F.now, treatmentPlan: text))
            }
        }
    }

    @Test(arguments: MedicationBackend.all)
    func medicationNamesRefuseControlAndBidi(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-05-10T10:00:00Z")))
        let patientID = try await f.registerPatient()
        for text in Self.hostile {
            let named = MT.medication(patientID: patientID, name: text)
            #expect(await MT.error { _ = try await f.store.create(named) }?.field == "name")
            let generic = MT.medication(patientID: patientID, genericName: text)
            #expect(await MT.error { _ = try await f.store.create(generic) }?.field == "genericName")
        }
        var categorised = MT.medication(patientID: patientID)
        categorised.form = MedicationForm(rawValue: "tablet\u{1B}[5m")
        #expect(await MT.error { _ = try await f.store.create(categorised) }?.field == "form")
        var instructed = MT.medication(patientID: patientID)
        instructed.instructions = "Con comida.\n\tNo conducir."
        #expect(try await f.store.create(instructed).instructions == instructed.instructions)
        instructed = MT.medication(patientID: patientID)
        instructed.instructions = "Con comida \u{1B}[8m"
        #expect(await MT.error { _ = try await f.store.create(instructed) }?.field == "instructions")
    }

    @Test("TextSafety.escaped makes every hazard visible and keeps one line")
    func escaping() {
        #expect(TextSafety.escaped("Ana\u{1B}[31mRuiz") == "Ana\\e[31mRuiz")
        #expect(TextSafety.escaped("a\nb\r\tc\u{7F}\u{9B}") == "a\\nb\\r\\tc\\x7F\\x9B")
        #expect(TextSafety.escaped("abc\u{202E}d\u{2066}") == "abc\\u{202E}d\\u{2066}")
        #expect(TextSafety.escaped("José Núñez") == "José Núñez")
        for text in Self.hostile {
            #expect(!TextSafety.escaped(text).unicodeScalars.contains(where: TextSafety.isRefusedInLine))
        }
    }
}
