import Foundation
import MedVaultCore
import Testing

/// The token-level matching rule and a patient's search tokens, which both patient
/// repositories apply.
@Suite("SearchText matching on folded tokens")
struct SearchTextMatchingTests {
    @Test func tokenRuleAgreesWithTheTextRule() {
        let fields: [String?] = ["José", "García-Núñez", nil, "pepe@ex.com"]
        let record = fields.compactMap { $0 }.flatMap(SearchText.tokens(of:))
        for query in ["jose", "gar nun", "NÚÑ", "pepe ex", "jose lopez", "garcia x", "ex.c", "j g n p e c"] {
            #expect(SearchText.matches(queryTokens: SearchText.tokens(of: query), recordTokens: record)
                    == SearchText.matches(query: query, in: fields), "\(query)")
        }
        #expect(SearchText.matches(queryTokens: ["gar"], recordTokens: record))
        #expect(!SearchText.matches(queryTokens: ["arc"], recordTokens: record))  // prefixes only
        #expect(SearchText.matches(queryTokens: [], recordTokens: record))
    }

    @Test func patientSearchTokensCoverTheSearchableFieldsInOrder() throws {
        let patient = Patient(firstName: "José", lastName: "García", dateOfBirth: try CalendarDate(iso8601: "1980-01-02"),
                              nationalId: "X-12", email: "jose@garcia.es", phoneNumber: "+34 600")
        #expect(patient.searchTokens == ["jose", "garcia", "x", "12", "jose", "garcia", "es", "34", "600"])
        var bare = patient
        bare.nationalId = nil
        bare.email = nil
        bare.phoneNumber = nil
        #expect(bare.searchTokens == ["jose", "garcia"])
    }
}
