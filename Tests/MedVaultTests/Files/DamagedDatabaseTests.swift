import CSQLCipher
import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A vault whose database was damaged after it was closed: a page overwritten with
/// noise, garbage pages appended, the tail cut off. `verify` reports each as a problem
/// (never as a failure to run), and storage errors name the file and say what to do.
@Suite("Damaged databases and clear storage errors")
struct DamagedDatabaseTests {
    static let pageSize = 4096

    /// A locked vault with enough patients for a few dozen pages.
    private func lockedVault(_ dir: TemporaryDirectory) async throws -> VaultLayout {
        let folder = dir.file("clinic")
        let created = try await Vault.create(at: folder, password: VaultFixtures.password(), options: VaultFixtures.options)
        try await VaultFixtures.insertRawPatients(created.vault, count: 400)
        await created.vault.lock()
        return VaultLayout(folder: folder)
    }

    private func open(_ layout: VaultLayout) async throws -> Vault {
        try await Vault.open(at: layout.folder, password: VaultFixtures.password(), options: VaultFixtures.options)
    }

    private func pageCount(_ layout: VaultLayout) throws -> Int {
        let size = try #require(try FileManager.default.attributesOfItem(atPath: layout.database.path)[.size] as? Int)
        return size / Self.pageSize
    }

    private func overwrite(_ url: URL, at offset: Int, with bytes: Data) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        handle.write(bytes)
    }

    private static func noise(_ count: Int) -> Data {
        Data((0..<count).map { _ in UInt8.random(in: 0...255) })
    }

    @Test("A page overwritten with noise in the middle: verify reports it instead of throwing")
    func damagedPage() async throws {
        try await withTemporaryDirectory { dir in
            let layout = try await lockedVault(dir)
            let pages = try pageCount(layout)
            try #require(pages > 8)
            // A page in use for sure (the middle one may be on the free list): the
            // patient table's root.
            let reader = try await open(layout)
            let root = try await reader.database.read { db in
                try db.fetchOne("SELECT rootpage FROM sqlite_master WHERE name = 'patient'") { row in Int(row.int64(at: 0)) }
            }
            await reader.lock()
            let page = try #require(root)
            try overwrite(layout.database, at: (page - 1) * Self.pageSize + 100, with: Self.noise(2000))
            let vault = try await open(layout)
            // Any read that meets the page names the file and calls it damaged.
            let readError = await #expect(throws: MedVaultError.self) {
                _ = try await vault.database.read { db in
                    let tables = try db.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table'") { row in
                        row.text(at: 0)
                    }
                    for table in tables {
                        try db.forEachRow("SELECT * FROM \"\(table)\"") { _ in true }
                    }
                }
            }
            let verification = try await vault.verify()
            await vault.lock()
            #expect(!verification.isSound)
            #expect(verification.problems.contains { $0.contains("damaged") || $0.contains("integrity check failed") })
            #expect(readError?.code == .corrupted)
            #expect(readError?.reason.contains("records.medvault") == true)
        }
    }

    @Test("Garbage pages appended to the file are reported by verify")
    func appendedPages() async throws {
        try await withTemporaryDirectory { dir in
            let layout = try await lockedVault(dir)
            let handle = try FileHandle(forWritingTo: layout.database)
            try handle.seekToEnd()
            handle.write(Self.noise(3 * Self.pageSize))
            try handle.close()
            let vault = try await open(layout)
            let verification = try await vault.verify()
            await vault.lock()
            #expect(verification.problems.contains { $0.contains("3 pages past its end") })
        }
    }

    @Test("A file that lost its tail does not open as sound: `corrupted`, naming the problem")
    func truncatedTail() async throws {
        try await withTemporaryDirectory { dir in
            let layout = try await lockedVault(dir)
            let pages = try pageCount(layout)
            #expect(truncate(layout.database.path, off_t((pages - 2) * Self.pageSize)) == 0)
            let error = await #expect(throws: MedVaultError.self) { _ = try await open(layout) }
            #expect(error?.code == .corrupted)
        }
    }

    @Test("CLI verify: a damaged page or a lost tail is a problem (exit 1), not a failure")
    func cliVerify() async throws {
        try await withTemporaryDirectory { dir in
            let layout = try await lockedVault(dir)
            let pages = try pageCount(layout)
            try overwrite(layout.database, at: (pages / 2) * Self.pageSize + 100, with: Self.noise(2000))
            let input = "contraseña segura\n"  // VaultFixtures.password()
            let damaged = try await CLIHarness.run(["verify", layout.folder.path, "--password-stdin"], input: input)
            #expect(damaged.status == 1, "\(damaged.standardError)")
            #expect(damaged.standardOutput.contains("PROBLEM"))
            #expect(truncate(layout.database.path, off_t((pages - 2) * Self.pageSize)) == 0)
            let truncated = try await CLIHarness.run(["verify", layout.folder.path, "--password-stdin"], input: input)
            #expect(truncated.status == 1, "\(truncated.standardError)")
            #expect(truncated.standardOutput.contains("PROBLEM  the database cannot be opened"))
        }
    }

    // MARK: - Error mapping

    @Test("Out-of-space results map to diskFull with the advice; other codes keep theirs")
    func diskFullMapping() {
        let file = URL(fileURLWithPath: "/nowhere/records.medvault")
        let full = SQLiteResult.error(SQLITE_FULL, connection: nil, context: "writing", file: file)
        #expect(full.code == .diskFull)
        #expect(full.reason == "writing (records.medvault): the disk is full: free space and try again")
        for code in [ENOSPC, EDQUOT] {
            #expect(DatabaseFile.fileError(code, "creating records.medvault").code == .diskFull)
            #expect(AtomicFile.posixError(code).code == .diskFull)
        }
        #expect(DatabaseFile.fileError(EIO, "reading").code == .storage)
        let cantOpen = SQLiteResult.error(SQLITE_CANTOPEN, connection: nil, context: "opening", file: file)
        #expect(cantOpen.reason.contains("records.medvault") && cantOpen.reason.contains("not writable"))
        #expect(SQLiteResult.error(SQLITE_CORRUPT, connection: nil, context: "reading rows", file: file).code == .corrupted)
    }
}
