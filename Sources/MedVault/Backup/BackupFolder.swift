import Foundation
import MedVaultCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system steps of backup and restore: refusing unsafe destinations, a private
/// temporary folder beside the destination, copies that are synced before they count,
/// and the rename that puts a verified folder in place.
enum BackupFolder {
    /// What is at a path, as `lstat` sees it (a link is never followed).
    enum Entry: Equatable {
        case missing
        case emptyFolder
        case folder(names: [String])
        case other(String)
    }

    static func entry(at url: URL) throws -> Entry {
        var status = stat()
        guard lstat(url.path, &status) == 0 else {
            if errno == ENOENT { return .missing }
            throw DatabaseFile.fileError(errno, "examining \(url.lastPathComponent)")
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
            return names.isEmpty ? .emptyFolder : .folder(names: names)
        case S_IFLNK: return .other("is a symbolic link")
        case S_IFIFO: return .other("is a named pipe")
        case S_IFREG: return .other("is a file")
        default: return .other("is a special file")
        }
    }

    /// Refuses a backup destination that exists as anything but an empty folder.
    static func checkNewDestination(_ url: URL) throws {
        switch try entry(at: url) {
        case .missing, .emptyFolder:
            try checkParent(of: url)
        case .folder:
            throw MedVaultError(.duplicate, field: "destination",
                                reason: "\(url.lastPathComponent) is a folder that is not empty; choose a new or empty folder")
        case .other(let what):
            throw MedVaultError(.invalidArgument, field: "destination",
                                reason: "\(url.lastPathComponent) \(what); choose a new or empty folder")
        }
    }

    /// The destination's parent must be a real folder (not a link): the temporary folder
    /// is made there, so the final rename stays on one file system.
    static func checkParent(of url: URL) throws {
        let parent = url.deletingLastPathComponent()
        var status = stat()
        guard lstat(parent.path, &status) == 0 else {
            throw DatabaseFile.fileError(errno, "examining the folder that should hold \(url.lastPathComponent)")
        }
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            throw MedVaultError(.invalidArgument, field: "destination",
                                reason: "the folder that should hold \(url.lastPathComponent) is not a folder (a link or a file)")
        }
    }

    /// Throws `diskFull` when the file system that will hold `destination` has less than
    /// `needed` bytes free (when the system does not say, the copy itself will tell).
    static func requireRoom(_ needed: Int, for destination: URL, doing what: String) throws {
        guard let free = DiskSpace.availableBytes(in: destination.deletingLastPathComponent()) else { return }
        guard free >= needed else {
            throw MedVaultError(.diskFull, reason: """
                \(what) needs \(String(format: "%.1f MiB", Double(needed) / 1_048_576)) free beside \(destination.lastPathComponent) \
                and the disk has \(String(format: "%.1f MiB", Double(free) / 1_048_576)); free space and try again
                """)
        }
    }

    /// Creates `<parent>/.<name>.<purpose>-<random>` with mode 0700.
    static func makeTemporary(besides destination: URL, purpose: String) throws -> URL {
        let suffix = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let url = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(purpose)-\(suffix)")
        guard mkdir(url.path, 0o700) == 0 else {
            throw DatabaseFile.fileError(errno, "creating a temporary folder beside \(destination.lastPathComponent)")
        }
        return url
    }

    /// Creates `url` empty with mode 0600; it must not exist.
    static func createEmptyFile(_ url: URL) throws {
        let descriptor = open(url.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw DatabaseFile.fileError(errno, "creating \(url.lastPathComponent)") }
        close(descriptor)
    }

    /// Copies the regular file `source` (never a link or a pipe) to the new file
    /// `destination` (mode 0600), then fsyncs it.
    ///
    /// - Parameter progress: Called with the bytes copied so far; return `false` to stop
    ///   (`cancelled` is thrown).
    static func copyFile(_ source: URL, to destination: URL, progress: (Int) -> Bool) throws {
        let input = open(source.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard input >= 0 else { throw DatabaseFile.fileError(errno, "opening \(source.lastPathComponent)") }
        defer { close(input) }
        var status = stat()
        guard fstat(input, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw MedVaultError(.invalidArgument, reason: "\(source.lastPathComponent) is not a regular file")
        }
        let output = open(destination.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard output >= 0 else { throw DatabaseFile.fileError(errno, "creating \(destination.lastPathComponent)") }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var copied = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw DatabaseFile.fileError(errno, "reading \(source.lastPathComponent)")
            }
            if count == 0 { break }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(output, $0.baseAddress! + offset, count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw DatabaseFile.fileError(errno, "writing \(destination.lastPathComponent)")
                }
                offset += written
            }
            copied += count
            guard progress(copied) else {
                throw MedVaultError(.cancelled, reason: "the copy was stopped")
            }
        }
        guard fsync(output) == 0 else { throw DatabaseFile.fileError(errno, "syncing \(destination.lastPathComponent)") }
    }

    /// fsyncs a file that was written through another descriptor (SQLite's).
    static func syncFile(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw DatabaseFile.fileError(errno, "opening \(url.lastPathComponent) to sync it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw DatabaseFile.fileError(errno, "syncing \(url.lastPathComponent)") }
    }

    /// Renames the complete `temporary` folder to `destination` (missing, or an empty
    /// folder, which `rename` replaces atomically) and syncs the parent folder; when that
    /// sync fails, `destination` is removed again and the error thrown.
    static func install(_ temporary: URL, at destination: URL) throws {
        try DatabaseFile.syncFolder(of: temporary.appendingPathComponent("x"))
        guard rename(temporary.path, destination.path) == 0 else {
            if errno == ENOTEMPTY || errno == EEXIST {
                throw MedVaultError(.duplicate, field: "destination",
                                    reason: "\(destination.lastPathComponent) was filled by someone else meanwhile")
            }
            throw DatabaseFile.fileError(errno, "renaming the verified copy to \(destination.lastPathComponent)")
        }
        do {
            try DatabaseFile.syncFolder(of: destination)
        } catch {
            // The rename may not survive a power cut: undo it, so that an error always
            // means nothing at `destination` (the caller may simply try again).
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
    }

    /// Removes a temporary folder and what it holds (best effort: a failure leaves a
    /// hidden folder with an incomplete copy, which no vault opens without its keyring).
    static func remove(_ folder: URL) {
        try? FileManager.default.removeItem(at: folder)
    }
}
