import Foundation
import MedVaultCore
import MedVaultTestSupport
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
        // Invisible: line and paragraph separators, a byte-order mark, zero-width space,
        // word joiner, and joiners that join no two letters.
        "Ana\u{2028}Ruiz", "Ana\u{2029}", "\u{FEFF}Ana", "Ana\u{200B}", "Ana\u{2060}", "Ana\u{200D}",
        "\u{200C}Ana", "Ana\u{200D} Ruiz", "Ana\u{200C}\u{200C}Ruiz",
    ]

    /// Joiners between two letters (or a letter and its mark), as Persian and the Indic
    /// scripts write them: accepted, and printed as they are.
    static let joinedNames = ["محمدی\u{200C}پور", "क्\u{200D}ष", "Ana\u{200D}María"]

    static let patientFields: [(field: String, change: @Sendable (inout Patient, String) -> Void)] = [
        ("firstName", { $0.firstName = $1 }),
        ("lastName", { $0.lastName = $1 }),
        ("nationalId", { $0.nationalId = $1 }),
        // The hazard without the name around it, wherever it stands in the sample.
        ("email", { $0.email = "ana" + $1.replacingOccurrences(of: "Ana", with: "") + "@example.org" }),
        ("phoneNumber", { $0.phoneNumber = "600" + $1.replacingOccurrences(of: "Ana", with: "") + "123" }),
        ("address", { $0.address = "Calle " + $1 }),
    ]

    @Test("Joiners between letters are accepted in names and stored as they are", arguments: ClinicalBackend.all)
    func joinersBetweenLettersAreKept(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        for name in Self.joinedNames {
            let stored = try await repos.patients.create(F.patient(name, name))
            #expect(try await repos.patients.get(stored.id).lastName == name)
            #expect(TextSafety.escaped(name) == name)
        }
    }

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
        #expect(TextSafety.escaped("\u{FEFF}Ana\u{2028}B\u{200D}") == "\\u{FEFF}Ana\\u{2028}B\\u{200D}")
        for text in Self.hostile {
            #expect(TextSafety.isRefusedInLine(text), "\(text.unicodeScalars.map(\.value))")
            #expect(!TextSafety.isRefusedInLine(TextSafety.escaped(text)), "\(text.unicodeScalars.map(\.value))")
        }
    }
}
