import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultICD11
import MedVaultTestSupport
import Testing

/// The cached catalogue over a real vault: what was fetched online is found offline,
/// accent-insensitively, and freezes into the same snapshot; what was not is `offline`.
@Suite("ICD-11 offline cache in the vault")
struct ICD11OfflineCacheTests {
    @Test("offline: a code seen before is found by accent-insensitive search and gives the same snapshot; unseen ones are offline")
    func offlineFallback() async throws {
        try await withTemporaryDirectory { dir in
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            let vault = created.vault
            let server = try await ICDTestServer()
            let catalog = ICD11CachedCatalog(remote: try server.client(), cache: vault.icd11Cache)
            let online = try await catalog.search("depresión", language: "es", limit: 10)
            #expect(online.source == .server)
            let chosen = try await catalog.entity(code: "6A70", language: "es")
            let snapshot = try chosen.snapshot(language: "es")
            _ = try await catalog.entity(code: "6A70", language: "en")  // English title merged in
            server.stop()

            let offline = try await catalog.search("DEPRESIVO unico", language: "es", limit: 10)
            #expect(offline.source == .cache)
            #expect(offline.entities.map(\.code) == ["6A70"])
            let english = try await catalog.search("single episode", language: "en", limit: 10)
            #expect(english.entities.map(\.code) == ["6A70"])
            let cached = try await catalog.entity(code: "6A70", language: "es")
            #expect(try cached.snapshot(language: "es") == snapshot)
            #expect(cached.titles["en"] == "Single episode depressive disorder")
            #expect(try await catalog.entity(uri: "http://id.who.int/icd/entity/578635574", language: "es").code == "6A70")

            #expect(await icdError { try await catalog.entity(code: "6B00", language: "es") }?.code == .offline)
            #expect(await icdError { try await catalog.search("ansiedad", language: "es", limit: 10) }?.code == .offline)

            // A diagnosis made offline from a cached code freezes the same snapshot.
            let patient = try await vault.patients.create(
                Patient(firstName: "Ana", lastName: "Ruiz", dateOfBirth: try CalendarDate(iso8601: "1990-01-02")))
            let session = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
            let diagnosis = try await vault.diagnoses.create(sessionID: session.id, code: "6A70", catalog: catalog)
            #expect(diagnosis.snapshot == snapshot)
            #expect(try await vault.diagnoses.get(diagnosis.id).snapshot == snapshot)
            #expect(await icdError { try await vault.diagnoses.create(sessionID: session.id, code: "6B00", catalog: catalog) }?.code
                    == .offline)
            #expect(try await vault.diagnoses.count() == 1)

            // It survives closing and reopening the vault.
            await vault.lock()
            let reopened = try await Vault.open(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            #expect(try await reopened.icd11Cache.find(code: "6A70", release: "2024-01")?.titles.count == 2)
            await reopened.lock()
        }
    }

    @Test("errors that are not about reaching the server are not hidden by the cache")
    func unauthorizedIsNotHidden() async throws {
        try await withICDTestServer { server in
            let cache = InMemoryICD11CacheRepository()
            let catalog = ICD11CachedCatalog(remote: try server.client(), cache: cache)
            _ = try await catalog.entity(code: "6A70", language: "es")
            try await server.control("scenario=unauthorized")
            #expect(await icdError { try await catalog.entity(code: "6A70", language: "es") }?.code == .unauthorized)
            try await server.control("scenario=server_error")
            #expect(try await catalog.entity(code: "6A70", language: "es").code == "6A70")  // 5xx: the cache answers
        }
    }

    @Test("a diagnosis in English gets its Spanish title from a second lookup")
    func spanishTitleFilled() async throws {
        try await withICDTestServer { server in
            let vault = InMemoryVault()
            let catalog = ICD11CachedCatalog(remote: try server.client(), cache: vault.icd11Cache)
            let patient = try await vault.patients.create(
                Patient(firstName: "Ana", lastName: "Ruiz", dateOfBirth: try CalendarDate(iso8601: "1990-01-02")))
            let session = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
            let diagnosis = try await vault.diagnoses.create(sessionID: session.id, code: "6B00", catalog: catalog,
                                                             language: "en", severity: .mild)
            #expect(diagnosis.snapshot == ICD11Snapshot(
                code: "6B00", title: "Generalised anxiety disorder", titleEs: "Trastorno de ansiedad generalizada",
                uri: "http://id.who.int/icd/entity/1712535455", releaseVersion: "2024-01"))
            #expect(diagnosis.severity == .mild)
            #expect(await icdError { try await vault.diagnoses.create(sessionID: session.id, code: "6A7Z", catalog: catalog) }?.code
                    == .notFound)
            #expect(try await vault.diagnoses.count() == 1)
        }
    }

    @Test("credentials and tokens never reach the vault's files, the cache or an error")
    func noSecretsStored() async throws {
        try await withTemporaryDirectory { dir in
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            let vault = created.vault
            var errors: [MedVaultError] = []
            try await withICDTestServer { server in
                let client = try server.client()
                let catalog = ICD11CachedCatalog(remote: client, cache: vault.icd11Cache)
                _ = try await catalog.search("depresión", language: "es", limit: 10)
                _ = try await catalog.entity(code: "6B00", language: "es")
                for scenario in ["unauthorized", "server_error", "malformed", "hostile", "redirect", "rate_limited"] {
                    try await server.control("scenario=\(scenario)")
                    if let error = await icdError({ try await client.entity(code: "6A72", language: "es") }) { errors.append(error) }
                }
                let bad = try server.client(credentials: ICD11Credentials(clientID: ICDTestServer.clientID, clientSecret: "wrong-secret-77"))
                try await server.control("scenario=normal")
                if let error = await icdError({ try await bad.search("depresión", language: "es", limit: 5) }) { errors.append(error) }
            }
            let markers = [ICDTestServer.clientID, ICDTestServer.clientSecret, "wrong-secret-77", "tok-", "Bearer"]
            for error in errors {
                for marker in markers {
                    #expect(!error.description.contains(marker))
                    #expect(!String(reflecting: error).contains(marker))
                }
            }
            // The decrypted cache rows hold catalogue data only.
            let rows = try await vault.database.read { db in
                try db.fetchAll("SELECT * FROM icd11_cache") { row in
                    (0..<row.columnCount).map { row.isNull(at: $0) ? "" : row.text(at: $0) }.joined(separator: "|")
                }
            }
            #expect(rows.count == 4)
            await vault.lock()
            // The vault folder's bytes: database, WAL, keyring, locks.
            let files = FileManager.default.enumerator(at: dir.url, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            #expect(!files.isEmpty)
            for file in files {
                guard let data = try? Data(contentsOf: file) else { continue }
                for marker in markers {
                    #expect(data.range(of: Data(marker.utf8)) == nil, "\(marker) in \(file.lastPathComponent)")
                }
            }
            for row in rows {
                for marker in markers { #expect(!row.contains(marker)) }
            }
        }
    }
}
