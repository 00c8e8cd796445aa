import CSQLCipher
import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Database pool: files that are not a MedVault database")
struct DatabaseFileErrorTests {
    /// Opens `url` expecting failure; asserts the code and that no byte changed and no sidecar appeared.
    private func expectRefusal(_ url: URL, key: SecureBytes, code: MedVaultError.Code,
                               keyIsAuthenticated: Bool = false) async throws -> MedVaultError? {
        let before = StorageFixtures.bytes(url)
        let error = await #expect(throws: MedVaultError.self) {
            _ = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                            migrator: StorageFixtures.notesMigrator,
                                            keyIsAuthenticated: keyIsAuthenticated)
        }
        #expect(error?.code == code)
        #expect(StorageFixtures.bytes(url) == before, "the file's bytes changed")
        for suffix in ["-wal", "-shm", "-journal"] {
            let sidecar = url.path + suffix
            let size = (try? FileManager.default.attributesOfItem(atPath: sidecar)[.size] as? Int) ?? 0
            #expect(size == 0, "\(suffix) was written")
        }
        return error
    }

    private func makeVault(_ url: URL, key: SecureBytes, notes: Int = 200) async throws {
        let pool = try await StorageFixtures.openNotes(url, key: key)
        try await pool.write { db in
            for n in 1...notes {
                try db.execute("INSERT INTO note(n, body) VALUES (?, ?)",
                               [.integer(Int64(n)), .text(String(repeating: "x", count: 300))])
            }
        }
        await pool.close()
    }

    @Test("A wrong key gives `wrongKey`")
    func wrongKey() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            try await makeVault(url, key: StorageFixtures.randomKey())
            _ = try await expectRefusal(url, key: StorageFixtures.randomKey(), code: .wrongKey)
        }
    }

    @Test("A key authenticated by the keyring that does not decrypt means a damaged file, not a wrong key")
    func authenticatedKeyThatFails() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            try await makeVault(url, key: StorageFixtures.randomKey())
            _ = try await expectRefusal(url, key: StorageFixtures.randomKey(), code: .notADatabase, keyIsAuthenticated: true)
        }
    }

    @Test("A plain, unencrypted SQLite file is refused")
    func plainSQLite() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("plain.db")
            var handle: OpaquePointer?
            #expect(medvault_sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK)
            #expect(medvault_sqlite3_exec(handle, "CREATE TABLE t(x); INSERT INTO t VALUES ('hello');", nil, nil, nil) == SQLITE_OK)
            medvault_sqlite3_close(handle)
            let header = try #require(StorageFixtures.bytes(url))
            #expect(header.starts(with: Data("SQLite format 3".utf8)))
            let error = try await expectRefusal(url, key: StorageFixtures.randomKey(), code: .notADatabase)
            #expect(error?.reason.contains("unencrypted") == true)
        }
    }

    @Test("Random bytes of an odd length are not a database")
    func randomBytes() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("random.db")
            try Data((0..<5000).map { _ in UInt8.random(in: 0...255) }).write(to: url)
            let error = try await expectRefusal(url, key: StorageFixtures.randomKey(), code: .notADatabase)
            #expect(error?.reason.contains("whole number of pages") == true)
        }
    }

    @Test("Random bytes of a whole number of pages cannot be told from a wrong key without the keyring")
    func randomPages() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("random.db")
            try Data((0..<8192).map { _ in UInt8.random(in: 0...255) }).write(to: url)
            _ = try await expectRefusal(url, key: StorageFixtures.randomKey(), code: .wrongKey)
            _ = try await expectRefusal(url, key: StorageFixtures.randomKey(), code: .notADatabase, keyIsAuthenticated: true)
        }
    }

    @Test("An empty file is refused, not silently turned into a new database")
    func emptyFile() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("empty.db")
            try Data().write(to: url)
            let error = try await expectRefusal(url, key: StorageFixtures.randomKey(), code: .notADatabase)
            #expect(error?.reason.contains("empty") == true)
        }
    }

    @Test("A file truncated in the middle of a page is refused")
    func truncatedMidPage() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let key = StorageFixtures.randomKey()
            try await makeVault(url, key: key)
            let bytes = try #require(StorageFixtures.bytes(url))
            try bytes.prefix(bytes.count - 1000).write(to: url)
            _ = try await expectRefusal(url, key: key, code: .notADatabase)
        }
    }

    @Test("A file truncated at a page boundary is reported as damaged")
    func truncatedAtPageBoundary() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let key = StorageFixtures.randomKey()
            try await makeVault(url, key: key)
            let bytes = try #require(StorageFixtures.bytes(url))
            #expect(bytes.count >= 4 * 4096)
            try bytes.prefix(2 * 4096).write(to: url)
            let error = try await expectRefusal(url, key: key, code: .corrupted)
            #expect(error?.reason.contains("truncated") == true)
        }
    }

    @Test("Opening an existing database where there is none gives `fileNotFound` and creates nothing")
    func missingFile() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("missing.db")
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await StorageFixtures.openNotes(url, key: StorageFixtures.randomKey(), mode: .openExisting)
            }
            #expect(error?.code == .fileNotFound)
            #expect(!FileManager.default.fileExists(atPath: url.path))
            let inMissingFolder = await #expect(throws: MedVaultError.self) {
                _ = try await StorageFixtures.openNotes(dir.file("no/such/folder.db"), key: StorageFixtures.randomKey())
            }
            #expect(inMissingFolder?.code == .fileNotFound)
        }
    }

    @Test("A folder in place of the database file is refused")
    func folderInsteadOfFile() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("folder.db")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            let error = await #expect(throws: MedVaultError.self) {
                _ = try await StorageFixtures.openNotes(url, key: StorageFixtures.randomKey(), mode: .openExisting)
            }
            #expect(error?.code == .notADatabase)
        }
    }

    @Test("A file the process may not write gives `permissionDenied`")
    func permissionDenied() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("vault.db")
            let key = StorageFixtures.randomKey()
            try await makeVault(url, key: key, notes: 1)
            if getuid() == 0 {
                // root bypasses file modes; check the errno mapping the open path uses.
                #expect(DatabaseFile.fileError(EACCES, "opening").code == .permissionDenied)
                #expect(DatabaseFile.fileError(EROFS, "opening").code == .permissionDenied)
                #expect(DatabaseFile.fileError(EIO, "opening").code == .storage)
                return
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: url.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path) }
            _ = try await expectRefusal(url, key: key, code: .permissionDenied)
        }
    }
}
