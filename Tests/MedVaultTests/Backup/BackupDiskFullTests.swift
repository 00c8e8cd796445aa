import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Backup and restore onto a 4 MiB tmpfs (mounting needs root; where it is refused the
/// test says so and checks the room arithmetic only).
@Suite("Backup and restore on a full disk", .serialized)
struct BackupDiskFullTests {
    private static func run(_ arguments: [String]) async -> Bool {
        guard let tool = StorageFixtures.which(arguments[0]),
              let result = try? await StorageFixtures.run(tool, Array(arguments.dropFirst())) else { return false }
        return result.status == 0
    }

    @Test("A backup or a restore that does not fit fails with diskFull before writing, and leaves nothing on that disk")
    func noRoom() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await BackupFixtures.makeVault(at: dir.file("vault"), patients: 3_000).vault
            try await vault.backup(to: dir.file("backup"))
            let mountPoint = dir.file("fs")
            try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: false)
            guard await Self.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint.path]) else {
                print("BackupDiskFullTests: tmpfs cannot be mounted here; checking the room check only")
                #expect(throws: MedVaultError.self) {
                    try BackupFolder.requireRoom(Int.max, for: dir.file("backup2"), doing: "the backup")
                }
                await vault.lock()
                return
            }
            defer { _ = umount2(mountPoint.path, 2) } // MNT_DETACH, as `umount -l`
            let backupError = await #expect(throws: MedVaultError.self) {
                try await vault.backup(to: mountPoint.appendingPathComponent("backup"))
            }
            #expect(backupError?.code == .diskFull, "\(String(describing: backupError))")
            #expect(backupError?.reason.contains("free space and try again") == true)
            #expect(BackupFixtures.names(in: mountPoint) == [])
            #expect(try await vault.patients.count() == 2_999)
            await vault.lock()
            let restoreError = await #expect(throws: MedVaultError.self) {
                try await Vault.restore(from: dir.file("backup"), to: mountPoint.appendingPathComponent("clinic"),
                                        password: try Password(BackupFixtures.password), options: VaultFixtures.options)
            }
            #expect(restoreError?.code == .diskFull, "\(String(describing: restoreError))")
            #expect(BackupFixtures.names(in: mountPoint) == [])
        }
    }
}
