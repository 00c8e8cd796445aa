import Foundation
@testable import MedVaultCore
import Testing

/// The in-memory first-level ICD-11 cache: a repeated search is answered without a
/// request (counted by a test catalogue), until its lifetime ends; offline answers and
/// errors are never kept.
@Suite("ICD-11 memoizing catalogue")
struct ICD11MemoizingCatalogTests {
    /// A catalogue that counts its requests and answers from a script.
    actor CountingCatalog: ICD11Catalog {
        nonisolated let release = "2024-01"
        private(set) var searches = 0
        private(set) var lookups = 0
        var source: ICD11SearchResult.Source = .server
        var failure: MedVaultError?

        func set(source: ICD11SearchResult.Source) { self.source = source }
        func set(failure: MedVaultError?) { self.failure = failure }

        func search(_ text: String, language: String, limit: Int) async throws -> ICD11SearchResult {
            searches += 1
            if let failure { throw failure }
            return ICD11SearchResult(entities: [ICD11MemoizingCatalogTests.entity], source: source)
        }

        func entity(code: String, language: String) async throws -> ICD11Entity {
            lookups += 1
            if let failure { throw failure }
            return ICD11MemoizingCatalogTests.entity
        }

        func entity(uri: String, language: String) async throws -> ICD11Entity {
            lookups += 1
            return ICD11MemoizingCatalogTests.entity
        }
    }

    static let entity = ICD11Entity(code: "6A70", titles: ["es": "Trastorno depresivo de episodio único"],
                                    uri: "http://id.who.int/icd/entity/1563440232", releaseVersion: "2024-01")

    /// A clock the test moves by hand.
    final class Clock: @unchecked Sendable {
        // Safety: `offset` is read and written under `lock`.
        private let lock = NSLock()
        private var offset: Duration = .zero
        private let start = ContinuousClock.now
        func advance(_ by: Duration) { lock.withLock { offset += by } }
        var now: ContinuousClock.Instant { lock.withLock { start + offset } }
    }

    @Test("A search repeated as the user types (any case, accents or spacing) asks once; another language or limit asks again; after the lifetime, again")
    func repeatedSearchAsksOnce() async throws {
        let remote = CountingCatalog()
        let clock = Clock()
        let catalog = ICD11MemoizingCatalog(base: remote, lifetime: .seconds(600)) { clock.now }
        for text in ["depresión", "Depresion", "  DEPRESIÓN "] {
            #expect(try await catalog.search(text, language: "es", limit: 10).entities == [Self.entity])
        }
        #expect(await remote.searches == 1)
        _ = try await catalog.search("depresión", language: "en", limit: 10)
        _ = try await catalog.search("depresión", language: "es", limit: 5)
        #expect(await remote.searches == 3)
        _ = try await catalog.entity(code: "6A70", language: "es")
        _ = try await catalog.entity(code: "6A70", language: "es")
        #expect(await remote.lookups == 1)
        clock.advance(.seconds(601))
        _ = try await catalog.search("depresión", language: "es", limit: 10)
        #expect(await remote.searches == 4)
    }

    @Test("Offline answers and errors are not kept: the next request asks the server again")
    func offlineAnswersAndErrorsAreNotKept() async throws {
        let remote = CountingCatalog()
        let catalog = ICD11MemoizingCatalog(base: remote)
        await remote.set(source: .cache)
        #expect(try await catalog.search("ansiedad", language: "es", limit: 10).source == .cache)
        await remote.set(source: .server)
        #expect(try await catalog.search("ansiedad", language: "es", limit: 10).source == .server)
        #expect(await remote.searches == 2)
        await remote.set(failure: MedVaultError(.offline, reason: "no network"))
        await #expect(throws: MedVaultError.self) { try await catalog.search("insomnio", language: "es", limit: 10) }
        await remote.set(failure: nil)
        _ = try await catalog.search("insomnio", language: "es", limit: 10)
        #expect(await remote.searches == 4)
        // Bad input is refused before anything is asked.
        await #expect(throws: MedVaultError.self) { try await catalog.search("  ", language: "es", limit: 10) }
        #expect(await remote.searches == 4)
    }

    @Test("At most `capacity` answers are kept, the oldest going first; removeAll forgets them")
    func capacityAndRemoveAll() async throws {
        let remote = CountingCatalog()
        let catalog = ICD11MemoizingCatalog(base: remote, capacity: 2)
        for text in ["uno", "dos", "tres"] { _ = try await catalog.search(text, language: "es", limit: 10) }
        #expect(await catalog.count == 2)
        _ = try await catalog.search("tres", language: "es", limit: 10)
        #expect(await remote.searches == 3)
        _ = try await catalog.search("uno", language: "es", limit: 10)
        #expect(await remote.searches == 4)
        await catalog.removeAll()
        #expect(await catalog.count == 0)
        _ = try await catalog.search("tres", language: "es", limit: 10)
        #expect(await remote.searches == 5)
    }
}
