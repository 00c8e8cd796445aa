import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport

/// A fresh encrypted database in a temporary folder, closed and removed when the
/// repositories that use it are released (or when `close` is called).
final class TemporaryVaultDatabase: Sendable {
    let directory: TemporaryDirectory
    let pool: VaultDatabase

    private init(directory: TemporaryDirectory, pool: VaultDatabase) {
        self.directory = directory
        self.pool = pool
    }

    static func open() async throws -> TemporaryVaultDatabase {
        let directory = try TemporaryDirectory()
        LeftoverDirectories.register(directory.url.path)
        do {
            let pool = try await VaultDatabase.open(
                at: directory.file("vault.db"), key: SecureBytes.random(count: 32), mode: .createIfMissing,
                migrator: MedVaultSchema.migrator)
            // Signatures as a vault makes them: Ed25519 under a root of this pool's own.
            pool.auditKeys.installSigningRoot(
                try ProfessionalSigningRoot(vaultKey: SecureBytes.random(count: 32), vaultID: UUID()))
            return TemporaryVaultDatabase(directory: directory, pool: pool)
        } catch {
            directory.remove()
            throw error
        }
    }

    func close() async {
        await pool.close()
        directory.remove()
        LeftoverDirectories.unregister(directory.url.path)
    }

    deinit {
        // The conformance tests do not call `close`: clean up when the last reference
        // (held by the `close` hook of the repositories) goes away.
        let (pool, directory) = (pool, directory)
        Task {
            await pool.close()
            directory.remove()
            LeftoverDirectories.unregister(directory.url.path)
        }
    }
}

/// The temporary databases not yet removed, deleted when the test process exits: a
/// release-time cleanup task may not get to run before the last test ends.
enum LeftoverDirectories {
    // Safety: `paths` is only touched while `lock` is held.
    private nonisolated(unsafe) static var paths: Set<String> = []
    private static let lock = NSLock()
    private nonisolated(unsafe) static var isHooked = false

    static func register(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        paths.insert(path)
        if !isHooked {
            isHooked = true
            atexit { LeftoverDirectories.removeAll() }
        }
    }

    static func unregister(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        paths.remove(path)
    }

    private static func removeAll() {
        lock.lock()
        let remaining = paths
        paths.removeAll()
        lock.unlock()
        for path in remaining { try? FileManager.default.removeItem(atPath: path) }
    }
}

extension ClinicalBackend {
    /// The SQLCipher repositories over a fresh database per `make`.
    static let sqlCipher = ClinicalBackend(name: "sqlcipher") { options in
        let database = try await TemporaryVaultDatabase.open()
        let records = SQLCipherClinicalRecords(pool: database.pool, clock: options.clock,
                                               maximumAttachmentByteCount: options.maximumAttachmentByteCount)
        return ClinicalRepositories(
            professional: records.professional, patients: records.patients, sessions: records.sessions,
            diagnoses: records.diagnoses, attachments: records.attachments,
            close: { await database.close() })
    }
}
