import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A real full disk: a 4 MiB tmpfs (mounting needs root; where it is refused the test
/// checks the errno mapping the real case relies on, and says so).
@Suite("Disk full")
struct DiskFullTests {
    private static func run(_ arguments: [String]) async -> Bool {
        guard let mount = StorageFixtures.which(arguments[0]),
              let result = try? await StorageFixtures.run(mount, Array(arguments.dropFirst())) else { return false }
        return result.status == 0
    }

    /// Writes zeros to a file in `folder` until the file system is full.
    private static func fill(_ folder: URL) {
        let descriptor = open(folder.appendingPathComponent("filler").path, O_WRONLY | O_CREAT, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    @Test("Writing, and opening to read, on a full disk report diskFull with the advice")
    func fullTmpfs() async throws {
        try await withTemporaryDirectory { dir in
            let mountPoint = dir.file("fs")
            try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: false)
            guard await Self.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint.path]) else {
                print("DiskFullTests: tmpfs cannot be mounted here; checking the ENOSPC mapping only")
                #expect(DatabaseFile.fileError(ENOSPC, "writing").code == .diskFull)
                return
            }
            defer { _ = umount2(mountPoint.path, 2) } // MNT_DETACH, as `umount -l`
            let folder = mountPoint.appendingPathComponent("clinic")
            let created = try await Vault.create(at: folder, password: VaultFixtures.password(), options: VaultFixtures.options)
            let vault = created.vault
            try await VaultFixtures.insertRawPatients(vault, count: 10)
            Self.fill(mountPoint)
            let writeError = await #expect(throws: MedVaultError.self) {
                try await VaultFixtures.insertRawPatients(vault, count: 2_000, start: 10)
            }
            #expect(writeError?.code == .diskFull, "\(String(describing: writeError))")
            #expect(writeError?.reason.contains("the disk is full: free space and try again") == true)
            await vault.lock()

            // No room for a fresh -shm or -wal: a read-only use must say the disk is full.
            do {
                let reopened = try await Vault.open(at: folder, password: VaultFixtures.password(),
                                                    options: VaultFixtures.options)
                let count = try await VaultFixtures.patientCount(reopened)
                await reopened.lock()
                #expect(count == 10)
            } catch let error as MedVaultError {
                #expect(error.code == .diskFull, "\(error)")
            }
        }
    }
}
