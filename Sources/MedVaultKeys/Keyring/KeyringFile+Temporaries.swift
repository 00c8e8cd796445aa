import Foundation
import MedVaultCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension KeyringFile {
    /// The temporary files an interrupted ``write(_:to:)`` of the keyring at `url` left
    /// behind (`.<name>.<hex>.tmp` in the same folder), by name.
    ///
    /// Such a file is a complete keyring as it was about to be written: it still opens
    /// the vault with the password it was written for, even after that password was
    /// changed. Remove them with ``removeTemporaryFiles(besides:)`` while no keyring
    /// write can be under way (MedVault does so under the vault's keyring lock).
    ///
    /// - Parameter url: The keyring file.
    /// - Returns: The leftover files' names, sorted.
    public static func temporaryFiles(besides url: URL) -> [String] {
        let prefix = AtomicFile.temporaryPrefix(for: url)
        let suffix = AtomicFile.temporarySuffix
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
        return names.filter { name in
            guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return false }
            let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
            return !middle.isEmpty && middle.allSatisfy(\.isHexDigit)
        }.sorted()
    }

    /// Removes the leftovers ``temporaryFiles(besides:)`` lists (a link is removed, never
    /// followed), then fsyncs the folder.
    ///
    /// - Parameter url: The keyring file.
    /// - Returns: How many were removed.
    /// - Throws: `MedVaultError.Code.permissionDenied` or `MedVaultError.Code.storage`
    ///   when one cannot be removed.
    @discardableResult
    public static func removeTemporaryFiles(besides url: URL) throws -> Int {
        let folder = url.deletingLastPathComponent()
        let names = temporaryFiles(besides: url)
        for name in names {
            try AtomicFile.remove(folder.appendingPathComponent(name))
        }
        if !names.isEmpty {
            let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if descriptor >= 0 {
                defer { close(descriptor) }
                guard fsync(descriptor) == 0 || errno == EINVAL else {
                    throw AtomicFile.posixError(errno)
                }
            }
        }
        return names.count
    }
}
