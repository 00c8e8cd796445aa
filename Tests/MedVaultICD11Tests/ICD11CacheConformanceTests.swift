import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// One body per behaviour of the offline cache, run on the in-memory cache and on the
/// vault's table.
@Suite("ICD-11 cache conformance")
struct ICD11CacheConformanceTests {
    enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case inMemory, sqlcipher
        var testDescription: String { rawValue }

        /// Runs `body` with an empty cache of this backend.
        func run(_ body: (any ICD11CacheRepository) async throws -> Void) async throws {
            switch self {
            case .inMemory:
                try await body(InMemoryICD11CacheRepository())
            case .sqlcipher:
                try await withTemporaryDirectory { dir in
                    let vault = try await Vault.create(at: dir.url, password: try VaultFixtures.password(),
                                                       options: VaultFixtures.options).vault
                    do {
                        try await body(vault.icd11Cache)
                        await vault.lock()
                    } catch {
                        await vault.lock()
                        throw error
                    }
                }
            }
        }
    }

    static let depressive = ICD11Entity(
        code: "6A70", titles: ["es": "Trastorno depresivo de episodio único"],
        uri: "http://id.who.int/icd/entity/578635574",
        linearizationURI: "http://id.who.int/icd/release/11/2024-01/mms/578635574", releaseVersion: "2024-01")
    static let anxiety = ICD11Entity(
        code: "6B00", titles: ["en": "Generalised anxiety disorder"],
        uri: "http://id.who.int/icd/entity/1712535455", releaseVersion: "2024-01")

    @Test("save merges titles by language; find by code and by either URI; release is part of the key", arguments: Backend.allCases)
    func saveAndFind(_ backend: Backend) async throws {
        try await backend.run { cache in
            try await cache.save(Self.depressive)
            var english = Self.depressive
            english.titles = ["en": "Single episode depressive disorder"]
            english.linearizationURI = nil
            let merged = try await cache.save(english)
            #expect(merged.titles == ["es": "Trastorno depresivo de episodio único", "en": "Single episode depressive disorder"])
            #expect(merged.linearizationURI == Self.depressive.linearizationURI)
            #expect(try await cache.find(code: "6A70", release: "2024-01") == merged)
            #expect(try await cache.find(code: "6A70", release: "2025-01") == nil)
            #expect(try await cache.find(uri: "http://id.who.int/icd/entity/578635574", release: "2024-01") == merged)
            #expect(try await cache.find(uri: "http://id.who.int/icd/release/11/2024-01/mms/578635574", release: "2024-01") == merged)
            var newer = Self.depressive
            newer.releaseVersion = "2025-01"
            try await cache.save([newer, Self.anxiety])
            #expect(try await cache.count() == 3)
            #expect(try await cache.find(code: "6A70", release: "2025-01")?.titles.count == 1)
        }
    }

    @Test("search is accent- and case-insensitive, by word prefix in any language or by code, exact code first", arguments: Backend.allCases)
    func search(_ backend: Backend) async throws {
        try await backend.run { cache in
            let recurrent = ICD11Entity(code: "6A71", titles: ["es": "Trastorno depresivo recurrente"],
                                        uri: "http://id.who.int/icd/entity/1194756772", releaseVersion: "2024-01")
            try await cache.save([recurrent, Self.depressive, Self.anxiety])
            #expect(try await cache.search("DEPRESIVO", release: "2024-01", limit: 10).map(\.code) == ["6A70", "6A71"])
            #expect(try await cache.search("depresivo unico", release: "2024-01", limit: 10).map(\.code) == ["6A70"])
            #expect(try await cache.search("únicó", release: "2024-01", limit: 10).map(\.code) == ["6A70"])
            #expect(try await cache.search("anx", release: "2024-01", limit: 10).map(\.code) == ["6B00"])
            #expect(try await cache.search("6a71", release: "2024-01", limit: 10).map(\.code) == ["6A71"])
            #expect(try await cache.search("trastorno", release: "2024-01", limit: 1).map(\.code) == ["6A70"])
            #expect(try await cache.search("depresivo", release: "2025-01", limit: 10).isEmpty)
            #expect(try await cache.search("psicosis", release: "2024-01", limit: 10).isEmpty)
        }
    }

    @Test("invalid input: validation or invalidArgument naming the field, nothing written, no value in the error", arguments: Backend.allCases)
    func invalidInput(_ backend: Backend) async throws {
        try await backend.run { cache in
            var hostile = Self.depressive
            hostile.titles["es"] = "Trastorno\u{202E}secreto"
            var badCode = Self.anxiety
            badCode.code = "6a00"
            var badURI = Self.anxiety
            badURI.uri = "http://evil.example/secreto"
            var noTitles = Self.anxiety
            noTitles.titles = [:]
            var badLanguage = Self.anxiety
            badLanguage.titles = ["EN\u{1B}": "Generalised anxiety disorder"]
            let cases: [(ICD11Entity, String)] = [(hostile, "entity.titles"), (badCode, "entity.code"), (badURI, "entity.uri"),
                                                  (noTitles, "entity.titles"), (badLanguage, "entity.titles")]
            for (entity, field) in cases {
                do {
                    try await cache.save([Self.anxiety, entity])
                    Issue.record("accepted an invalid entity")
                } catch let error as MedVaultError {
                    #expect(error.code == .validation)
                    #expect(error.field == field)
                    #expect(!error.description.contains("secreto"))
                }
            }
            #expect(try await cache.count() == 0)
            await #expect(throws: MedVaultError.self) { try await cache.search("", release: "2024-01", limit: 10) }
            await #expect(throws: MedVaultError.self) { try await cache.search("x", release: "2024-01", limit: 0) }
        }
    }
}
