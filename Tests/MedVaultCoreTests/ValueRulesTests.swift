import Foundation
import MedVaultCore
import Testing

/// Pure rules of the clinical values: MIME syntax, sort keys, birth-date limit,
/// extensible categories.
@Suite("Clinical value rules")
struct ValueRulesTests {
    @Test(arguments: ["application/pdf", "image/jpeg", "application/vnd.ms-excel", "image/svg+xml",
                      "application/octet-stream", "TEXT/Plain", "application/x-www-form-urlencoded"])
    func validMIMETypes(text: String) {
        #expect(NewAttachment.isValidMIMEType(text))
    }

    @Test(arguments: ["", "pdf", "application/", "/pdf", "application/pdf; charset=x", "a/b/c", "appli cation/pdf",
                      "application/-pdf", "applicación/pdf", "text/plain\n"])
    func invalidMIMETypes(text: String) {
        #expect(!NewAttachment.isValidMIMEType(text))
    }

    @Test func sortKeyFoldsAndSeparatesNames() {
        #expect(Patient.sortKey(lastName: "Álvarez", firstName: "José") == "alvarez\u{1}jose")
        #expect(Patient.sortKey(lastName: "ALVAREZ", firstName: "jose") == "alvarez\u{1}jose")
        #expect(Patient.sortKey(lastName: "O'Brien-Núñez", firstName: "Seán") == "o brien nunez\u{1}sean")
        let short = Patient.sortKey(lastName: "García", firstName: "Zoe")
        let long = Patient.sortKey(lastName: "García López", firstName: "Ana")
        #expect(short.utf8.lexicographicallyPrecedes(long.utf8))
    }

    @Test func orderTiebreaksOnIDBytes() throws {
        let low = try #require(UUID(uuidString: "00000000-0000-0000-0000-0000000000FF"))
        let high = try #require(UUID(uuidString: "A0000000-0000-0000-0000-000000000000"))
        #expect(Patient.ordered("k", low, before: "k", high))
        #expect(!Patient.ordered("k", high, before: "k", low))
        #expect(!Patient.ordered("k", low, before: "k", low))
        #expect(Patient.ordered("a", high, before: "b", low))
    }

    @Test func latestDateOfBirthIsTodayInUTCPlus14() throws {
        // 2025-06-15T09:59:59Z is 2025-06-15T23:59:59 at UTC+14; a second later it is the 16th there.
        #expect(Patient.latestDateOfBirth(at: Date(timeIntervalSince1970: 1_749_981_599))
            == (try CalendarDate(iso8601: "2025-06-15")))
        #expect(Patient.latestDateOfBirth(at: Date(timeIntervalSince1970: 1_749_981_600))
            == (try CalendarDate(iso8601: "2025-06-16")))
    }

    @Test func validationReportsEveryFieldInOrderAndNormalizesBlanks() throws {
        let now = Date(timeIntervalSince1970: 1_749_981_600)
        var patient = Patient(firstName: " ", lastName: "", dateOfBirth: try CalendarDate(iso8601: "2030-01-01"),
                              email: "x", phoneNumber: "y")
        #expect(patient.validationErrors(at: now).map(\.field) == [
            "firstName", "lastName", "dateOfBirth", "email", "phoneNumber",
        ])
        patient = Patient(firstName: "A", lastName: "B", dateOfBirth: try CalendarDate(iso8601: "2000-01-01"),
                          nationalId: " ", email: "", phoneNumber: "\t", address: "\n")
        let stored = try patient.validated(at: now)
        #expect(stored.nationalId == nil && stored.email == nil && stored.phoneNumber == nil && stored.address == nil)
    }

    @Test func phoneAndEmailSyntax() throws {
        let now = Date(timeIntervalSince1970: 1_749_981_600)
        func errors(email: String? = nil, phone: String? = nil) throws -> [String?] {
            try Patient(firstName: "A", lastName: "B", dateOfBirth: CalendarDate(iso8601: "2000-01-01"),
                        email: email, phoneNumber: phone).validationErrors(at: now).map(\.field)
        }
        #expect(try errors(email: "ana.ruiz+tag@clinica.example.es").isEmpty)
        #expect(try errors(phone: "+34 (600) 123-456").isEmpty)
        #expect(try errors(phone: "600.123.456").isEmpty)
        for bad in ["@example.com", "ana@", "ana@@example.com", "ana@example", "ana@.com", "ana@example..com"] {
            #expect(try errors(email: bad) == ["email"], "\(bad)")
        }
        for bad in ["12", "600 123 abc", "34+600", String(repeating: "1", count: 21)] {
            #expect(try errors(phone: bad) == ["phoneNumber"], "\(bad)")
        }
    }

    /// Unknown raw values of every extensible category survive a JSON round trip.
    @Test func categoriesRoundTripUnknownValues() throws {
        struct Sample: Codable, Equatable {
            var sex: BiologicalSex
            var type: SessionType
            var status: SessionStatus
            var diagnosisType: DiagnosisType
            var severity: DiagnosisSeverity
        }
        let known = Sample(sex: .female, type: .video, status: .completed, diagnosisType: .differential,
                           severity: .moderate)
        let unknown = Sample(sex: BiologicalSex(rawValue: "x-new"), type: SessionType(rawValue: "x-home"),
                             status: SessionStatus(rawValue: "x-noShow"), diagnosisType: DiagnosisType(rawValue: "x-rule-out"),
                             severity: DiagnosisSeverity(rawValue: "x-profound"))
        for sample in [known, unknown] {
            let json = try JSONEncoder().encode(sample)
            #expect(try JSONDecoder().decode(Sample.self, from: json) == sample)
        }
        let json = String(decoding: try JSONEncoder().encode(known.type), as: UTF8.self)
        #expect(json == "\"video\"")
    }

    /// Dates of birth read back as the same day whatever the time zone they are shown in.
    @Test func patientCodingKeepsTheCalendarDay() throws {
        let patient = Patient(firstName: "A", lastName: "B", dateOfBirth: try CalendarDate(iso8601: "1984-03-07"))
        let decoded = try JSONDecoder().decode(Patient.self, from: JSONEncoder().encode(patient))
        #expect(decoded.dateOfBirth.iso8601 == "1984-03-07")
        #expect(decoded == patient)
    }
}
