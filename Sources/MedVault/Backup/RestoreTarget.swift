import Foundation
import MedVaultCore
import MedVaultKeys
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder a restore writes to: missing or empty (created by one rename), or a
/// vault's folder (replaced, when nobody has the vault open).
enum RestoreTarget {
    /// - Returns: Whether the target holds a vault to replace.
    /// - Throws: `invalidArgument` for a file, link, pipe, or a folder holding anything
    ///   but a vault's files (a restore never deletes files it does not know).
    static func inspect(_ target: VaultLayout) throws -> Bool {
        switch try BackupFolder.entry(at: target.folder) {
        case .missing, .emptyFolder:
            try BackupFolder.checkParent(of: target.folder)
            return false
        case .other(let what):
            throw MedVaultError(.invalidArgument, field: "vault", reason: "the vault's path \(what)")
        case .folder(let names):
            let known = Set(vaultFileNames(target))
            let temporaries = Set(KeyringFile.temporaryFiles(besides: target.keyring))
            let strangers = names.filter {
                !known.contains($0) && !temporaries.contains($0) && !$0.hasPrefix(VaultLayout.doseJournalPrefix)
            }
            guard strangers.isEmpty else {
                throw MedVaultError(.invalidArgument, field: "vault", reason: """
                    the folder holds \(strangers.count) files that are not a vault's; \
                    restore into a new folder or the folder of a vault
                    """)
            }
            try BackupFolder.checkParent(of: target.folder)
            return true
        }
    }

    /// The names of every file a vault's folder may hold.
    static func vaultFileNames(_ layout: VaultLayout) -> [String] {
        (layout.allFiles + [layout.presenceLock, layout.keyringLock, layout.doseJournalLock]).map(\.lastPathComponent)
    }

    /// Replaces the vault at `target` with the verified folder `replacement`.
    static func replace(_ target: VaultLayout, with replacement: URL, lockTimeout: Duration) async throws {
        let keyringLock = try VaultFileLock(target.keyringLock)
        defer { keyringLock.release() }
        try await keyringLock.lock(.exclusive, timeout: lockTimeout,
                                   waitingFor: "another process is opening this vault or changing its keys")
        let presence = try VaultFileLock(target.presenceLock)
        defer { presence.release() }
        guard try presence.tryLockCurrent(.exclusive) else {
            throw MedVaultError(.vaultInUse,
                                reason: "another process (or an open Vault) has this vault open; close it there and try again")
        }
        let old: VaultLayout
        if FolderExchange.exchange(replacement, target.folder) {
            // One atomic step: the target names the new vault, `replacement` the old one.
            old = VaultLayout(folder: replacement)
        } else {
            old = VaultLayout(folder: try renameAside(target, replacement: replacement))
        }
        // The restore has happened; a failed sync cannot be undone by an error (the
        // caller could not tell which vault is in place). The next rename syncs again.
        try? DatabaseFile.syncFolder(of: target.folder)
        // The old vault is gone from its path: shred its keyring (its records become
        // unreadable), then remove its files.
        try? KeyringFile.destroy(at: old.keyring)
        BackupFolder.remove(old.folder)
    }

    /// Where no atomic exchange exists: two renames, the old vault aside first. A crash
    /// between them leaves the target absent and both vaults beside it.
    ///
    /// - Returns: Where the old vault now is.
    static func renameAside(_ target: VaultLayout, replacement: URL) throws -> URL {
        let aside = try BackupFolder.makeTemporary(besides: target.folder, purpose: "replaced")
        // `rename` replaces the empty folder just made: the old vault keeps a unique name.
        guard rename(target.folder.path, aside.path) == 0 else {
            rmdir(aside.path)
            throw DatabaseFile.fileError(errno, "moving the old vault aside")
        }
        guard rename(replacement.path, target.folder.path) == 0 else {
            let failure = DatabaseFile.fileError(errno, "renaming the restored vault into place")
            // Put the old vault back: the target must be unchanged after an error.
            _ = rename(aside.path, target.folder.path)
            throw failure
        }
        return aside
    }
}
