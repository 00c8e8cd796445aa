import Foundation
import MedVaultCore
import Testing

@Suite("ICD-11 entity")
struct ICD11EntityTests {
    static let entity = ICD11Entity(
        code: "6A70", titles: ["en": "Single episode depressive disorder", "es": "Trastorno depresivo de episodio único"],
        uri: "http://id.who.int/icd/entity/578635574",
        linearizationURI: "http://id.who.int/icd/release/11/2024-01/mms/578635574", releaseVersion: "2024-01")

    @Test("snapshot in a language: that title, the Spanish one kept; back to an entity and again without loss")
    func snapshotRoundTrip() throws {
        let english = try Self.entity.snapshot(language: "en")
        #expect(english == ICD11Snapshot(code: "6A70", title: "Single episode depressive disorder",
                                         titleEs: "Trastorno depresivo de episodio único",
                                         uri: "http://id.who.int/icd/entity/578635574", releaseVersion: "2024-01"))
        #expect(try ICD11Entity(snapshot: english, language: "en").snapshot(language: "en") == english)
        let spanish = try Self.entity.snapshot(language: "es")
        #expect(spanish.title == "Trastorno depresivo de episodio único")
        #expect(try ICD11Entity(snapshot: spanish, language: "es").snapshot(language: "es") == spanish)
        // A language not fetched falls back to English.
        #expect(try Self.entity.snapshot(language: "fr").title == "Single episode depressive disorder")
    }

    @Test("an entity that makes no valid snapshot is a validation error naming the field")
    func invalidSnapshot() {
        var entity = Self.entity
        entity.titles = [:]
        #expect(throws: MedVaultError.validation("snapshot.title", "must not be blank")) { try entity.snapshot(language: "es") }
        entity = Self.entity
        entity.releaseVersion = "2024"
        #expect(throws: MedVaultError.self) { try entity.snapshot(language: "es") }
    }

    @Test("merging adds titles language by language and keeps a known linearization URI")
    func merging() {
        let newer = ICD11Entity(code: "6A70", titles: ["es": "Nuevo título"], uri: Self.entity.uri, releaseVersion: "2024-01")
        let merged = Self.entity.merging(newer)
        #expect(merged.titles == ["en": "Single episode depressive disorder", "es": "Nuevo título"])
        #expect(merged.linearizationURI == Self.entity.linearizationURI)
    }

    @Test("language tags")
    func languages() {
        for good in ["es", "en", "zh-Hans", "ar", "fil"] { #expect(ICD11Entity.isValidLanguage(good), "\(good)") }
        for bad in ["", "e", "ES", "espa", "es-", "es-toolongtag", "es_ES", "es\u{1B}", "és"] {
            #expect(!ICD11Entity.isValidLanguage(bad), "\(bad)")
        }
    }
}
