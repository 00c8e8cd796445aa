import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Cipher settings: pragmas per SQLCipher version, applied and read back")
struct CipherSettingsTests {
    /// Settings unlike SQLCipher 3's defaults in everything that changes the file.
    static var unusual: CipherSettings {
        var settings = CipherSettings.medVaultDefault
        settings.pageSize = 8192
        settings.kdfIterations = 4000
        settings.fastKDFIterations = 3
        return settings
    }

    static func configuration(_ settings: CipherSettings) -> DatabaseConfiguration {
        var configuration = DatabaseConfiguration()
        configuration.cipherSettings = settings
        return configuration
    }

    @Test("the major version is read from cipher_version; versions other than 3 and 4 are refused")
    func majorVersions() throws {
        #expect(try CipherPragmas.majorVersion(of: "3.4.1") == 3)
        #expect(try CipherPragmas.majorVersion(of: "4.12.0 community") == 4)
        for version in ["5.0.0", "2.2.1", "", "community", "99999.1"] {
            #expect { _ = try CipherPragmas.majorVersion(of: version) } throws: {
                ($0 as? MedVaultError)?.code == .encryptionUnavailable
            }
        }
        #expect { _ = try CipherPragmas.statements(for: .medVaultDefault, majorVersion: 5) } throws: {
            ($0 as? MedVaultError)?.code == .encryptionUnavailable
        }
    }

    @Test("SQLCipher 3 and 4 get every setting, in an order that works, for any schema")
    func statements() throws {
        #expect(try CipherPragmas.statements(for: .medVaultDefault, majorVersion: 3) == [
            "PRAGMA main.cipher = 'aes-256-cbc'", "PRAGMA main.cipher_use_hmac = ON",
            "PRAGMA main.cipher_page_size = 4096", "PRAGMA main.kdf_iter = 64000", "PRAGMA main.fast_kdf_iter = 2",
        ])
        #expect(try CipherPragmas.statements(for: Self.unusual, majorVersion: 4, schema: "rekeyed") == [
            "PRAGMA rekeyed.cipher_compatibility = 3", "PRAGMA rekeyed.cipher_page_size = 8192",
            "PRAGMA rekeyed.cipher_use_hmac = ON", "PRAGMA rekeyed.cipher_hmac_algorithm = HMAC_SHA1",
            "PRAGMA rekeyed.cipher_kdf_algorithm = PBKDF2_HMAC_SHA1", "PRAGMA rekeyed.kdf_iter = 4000",
            "PRAGMA rekeyed.fast_kdf_iter = 3",
        ])
        // SQLCipher 3 has only the SHA-1 algorithms: SQLCipher 4's own defaults are refused, not ignored.
        var sha512 = CipherSettings.medVaultDefault
        sha512.hmacAlgorithm = "HMAC_SHA512"
        #expect { _ = try CipherPragmas.statements(for: sha512, majorVersion: 3) } throws: {
            ($0 as? MedVaultError)?.code == .encryptionUnavailable
        }
        #expect(try CipherPragmas.statements(for: sha512, majorVersion: 4).contains("PRAGMA main.cipher_hmac_algorithm = HMAC_SHA512"))
    }

    /// Settings that must never reach PRAGMA text: injection, unknown names, bad numbers.
    static let invalidSettings: [CipherSettings] = {
        let edits: [(inout CipherSettings) -> Void] = [
            { $0.cipher = "aes-256-cbc'; ATTACH 'x' AS y; --" },
            { $0.cipher = "aes-128-cbc" },
            { $0.cipher = "AES-256-CBC " },
            { $0.hmacAlgorithm = "HMAC_SHA1; PRAGMA key = 1" },
            { $0.kdfAlgorithm = "PBKDF2_HMAC_MD5" },
            { $0.fastKDFIterations = 0 },
            { $0.fastKDFIterations = 1_000_000 },
            { $0.kdfIterations = 20_000_000 },
            { $0.compatibility = 5 },
            { $0.pageSize = 4095 },
        ]
        return edits.map { edit in
            var settings = CipherSettings.medVaultDefault
            edit(&settings)
            return settings
        }
    }()

    @Test("only known names and bounded numbers reach PRAGMA text", arguments: invalidSettings)
    func strictValidation(settings: CipherSettings) async throws {
        for major in [3, 4] {
            #expect { _ = try CipherPragmas.statements(for: settings, majorVersion: major) } throws: {
                ($0 as? MedVaultError)?.code == .invalidArgument
            }
        }
        // A pool with such settings is refused before any file is created.
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            await #expect { _ = try await VaultDatabase.open(at: url, key: StorageFixtures.randomKey(), mode: .createIfMissing,
                                                            configuration: Self.configuration(settings)) } throws: {
                ($0 as? MedVaultError)?.code == .invalidArgument
            }
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test("every setting reaches the file: the sqlcipher shell needs all of them, MedVault's defaults fail")
    func settingsReachTheFile() async throws {
        let shell = try #require(StorageFixtures.which("sqlcipher"), "the sqlcipher shell is installed by make deps")
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let key = StorageFixtures.randomKey()
            let configuration = Self.configuration(Self.unusual)
            let pool = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing,
                                                   migrator: StorageFixtures.notesMigrator, configuration: configuration)
            try await StorageFixtures.insertNote(pool, 7, "seven")
            let readBack = try await pool.read { db in try db.readCipherSettings() }
            #expect(readBack.problems(against: Self.unusual) == [])
            #expect(readBack.fastKDFIterations == 3 && readBack.pageSize == 8192 && readBack.kdfIterations == 4000)
            await pool.close()

            let statements = try CipherPragmas.statements(for: Self.unusual, majorVersion: 3)
            let full = try await StorageFixtures.run(shell, [url.path], input: """
                PRAGMA key = "x'\(StorageFixtures.hex(key))'";
                \(statements.joined(separator: ";\n"));
                SELECT body FROM note WHERE n = 7;
                """)
            #expect(full.output.contains("seven"), "\(full.output)")
            // The page size alone is not enough: fast_kdf_iter derives the page HMAC key.
            let pageOnly = try await StorageFixtures.run(shell, [url.path], input: """
                PRAGMA key = "x'\(StorageFixtures.hex(key))'";
                PRAGMA cipher_page_size = 8192;
                SELECT body FROM note WHERE n = 7;
                """)
            #expect(!pageOnly.output.contains("seven"))

            await #expect { _ = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                            migrator: StorageFixtures.notesMigrator) } throws: {
                ($0 as? MedVaultError)?.code == .wrongKey
            }
            let reopened = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                       migrator: StorageFixtures.notesMigrator, configuration: configuration)
            #expect(try await StorageFixtures.noteNumbers(reopened) == [7])
            await reopened.close()
        }
    }

    @Test("the read-back reports a setting changed on a live connection, and nothing when all match")
    func readBackSeesLiveSettings() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let key = StorageFixtures.randomKey()
            let pool = try await StorageFixtures.openNotes(url, key: key)
            await pool.close()
            let connection = try DatabaseConnection.open(path: url.path, key: key, role: .writer,
                                                         configuration: DatabaseConfiguration())
            defer { connection.close() }
            #expect(try connection.readCipherSettings().problems(against: .medVaultDefault) == [])
            try connection.executeScript("PRAGMA kdf_iter = 1000;")
            #expect(try connection.readCipherSettings().problems(against: .medVaultDefault) == [
                "cipher setting kdf_iter is 1000, the keyring records 64000",
            ])
        }
    }

    @Test("each differing or unreadable setting is one problem line; SQLCipher 4 also compares algorithms")
    func readBackProblems() {
        let matching = CipherSettingsReadBack(majorVersion: 3, cipher: "AES-256-CBC", pageSize: 4096, usesHMAC: true,
                                              kdfIterations: 64_000, fastKDFIterations: 2)
        #expect(matching.problems(against: .medVaultDefault) == [])
        var differing = matching
        differing.pageSize = 1024
        differing.usesHMAC = false
        differing.fastKDFIterations = 3
        differing.cipher = nil
        #expect(differing.problems(against: .medVaultDefault) == [
            "cipher setting cipher could not be read back (expected aes-256-cbc)",
            "cipher setting cipher_page_size is 1024, the keyring records 4096",
            "cipher setting cipher_use_hmac is OFF, the keyring records ON",
            "cipher setting fast_kdf_iter is 3, the keyring records 2",
        ])
        var four = matching
        four.majorVersion = 4
        four.hmacAlgorithm = "HMAC_SHA512"
        four.kdfAlgorithm = "PBKDF2_HMAC_SHA1"
        #expect(four.problems(against: .medVaultDefault) == [
            "cipher setting cipher_hmac_algorithm is HMAC_SHA512, the keyring records HMAC_SHA1",
        ])
    }

    @Test("the re-encrypted copy is written with the configuration's settings, not SQLCipher's defaults")
    func rekeyedCopyUsesTheSettings() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let oldKey = StorageFixtures.randomKey()
            let newKey = StorageFixtures.randomKey()
            let configuration = Self.configuration(Self.unusual)
            let pool = try await VaultDatabase.open(at: url, key: oldKey, mode: .createIfMissing,
                                                   migrator: StorageFixtures.notesMigrator, configuration: configuration)
            try await StorageFixtures.insertNote(pool, 1, "uno")
            await pool.close()
            let copy = DatabaseKeyChange.copyURL(for: url)
            try DatabaseKeyChange.exportCopy(of: url, oldKey: oldKey, to: copy, newKey: newKey,
                                             configuration: configuration) { _ in true }
            try DatabaseKeyChange.verify(copy, key: newKey, configuration: configuration)
            #expect(throws: MedVaultError.self) {
                try DatabaseKeyChange.verify(copy, key: newKey, configuration: DatabaseConfiguration())
            }
            var pageOnly = CipherSettings.medVaultDefault
            pageOnly.pageSize = 8192
            #expect(throws: MedVaultError.self) {
                try DatabaseKeyChange.verify(copy, key: newKey, configuration: Self.configuration(pageOnly))
            }
        }
    }
}
