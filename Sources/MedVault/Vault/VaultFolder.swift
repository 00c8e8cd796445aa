import Foundation
import MedVaultCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The vault's folder: private to its owner (mode 0700), so that nobody else can plant
/// a link or a file where MedVault will open one.
enum VaultFolder {
    /// The folder's mode.
    static let privateMode: mode_t = 0o700

    /// Creates `folder` (and missing parents) with mode 0700, or tightens an existing
    /// folder of this user to 0700.
    ///
    /// - Throws: `permissionDenied` when the folder cannot be created or changed, or
    ///   belongs to another user; `storage` when the path is not a folder.
    static func prepare(_ folder: URL) throws {
        let path = folder.path
        var status = stat()
        if stat(path, &status) != 0 {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: Int(privateMode)])
            } catch {
                throw MedVaultError(.permissionDenied, reason: "the vault's folder could not be created")
            }
            guard stat(path, &status) == 0 else {
                throw DatabaseFile.fileError(errno, "examining the vault's folder")
            }
        }
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            throw MedVaultError(.storage, reason: "the vault's path is not a folder")
        }
        guard status.st_uid == geteuid() else {
            throw MedVaultError(.permissionDenied,
                                reason: "the vault's folder belongs to another user; create the vault in a folder of your own")
        }
        if status.st_mode & 0o7777 != privateMode {
            guard chmod(path, privateMode) == 0 else {
                throw DatabaseFile.fileError(errno, "making the vault's folder private (mode 0700)")
            }
        }
    }

    /// A problem line when `folder` grants any access to group or others, else `nil`.
    static func permissionProblem(_ folder: URL) -> String? {
        var status = stat()
        guard stat(folder.path, &status) == 0 else { return "the vault's folder cannot be examined" }
        let mode = status.st_mode & 0o7777
        guard mode & 0o077 != 0 else { return nil }
        return "the vault's folder is open to other users (mode \(String(mode, radix: 8))): run chmod 700 on it"
    }
}
