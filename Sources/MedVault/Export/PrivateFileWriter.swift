import Foundation
import MedVaultCore
import MedVaultKeys

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file that holds record data in clear text (an export) so that only its
/// owner can read it, and so that a crash leaves the old file or the new one, never
/// half of one.
///
/// The data goes to a temporary file created with mode 0600 in the destination's
/// folder, is synced, and renamed over the destination; then the folder is synced.
/// It refuses, before writing anything:
/// - a destination that exists and is readable or writable by other users (it would
///   have been exposed: someone may hold it open or copy it), or is not a regular
///   file (a symbolic link, a folder, a device);
/// - a folder that other users (its group included) may write to without the sticky
///   bit, or that belongs to another user than the caller or root (they could swap the
///   file after it is written).
///
/// For example:
///
/// ```swift
/// try PrivateFileWriter.write(try export.jsonData(), to: URL(fileURLWithPath: "record.json"))
/// ```
public enum PrivateFileWriter {
    /// Writes `data` to `url` atomically with mode 0600.
    ///
    /// - Parameters:
    ///   - data: The content.
    ///   - url: The destination file.
    /// - Throws: `MedVaultError.Code.permissionDenied` (field `output`) for a
    ///   destination or folder whose permissions would expose the file, or when the
    ///   system refuses access; `MedVaultError.Code.fileNotFound` when the folder
    ///   does not exist; `MedVaultError.Code.storage` for other I/O failures.
    public static func write(_ data: Data, to url: URL) throws {
        try check(url)
        let path = url.standardizedFileURL.path
        let folder = (path as NSString).deletingLastPathComponent

        let temporary = folder + "/." + (path as NSString).lastPathComponent + "." + UUID().uuidString + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw fileError(errno) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            // The umask may have cleared bits, never added them; set the mode exactly.
            guard fchmod(descriptor, 0o600) == 0 else { throw fileError(errno) }
            try data.withUnsafeBytes { try writeAll(descriptor, $0) }
            guard fsync(descriptor) == 0 else { throw fileError(errno) }
        }
        guard rename(temporary, path) == 0 else { throw fileError(errno) }
        renamed = true
        let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            defer { close(folderDescriptor) }
            guard fsync(folderDescriptor) == 0 || errno == EINVAL else { throw fileError(errno) }
        }
    }

    // MARK: - Checks

    /// Checks, without writing, that ``write(_:to:)`` would accept `url`: lets a tool
    /// refuse an exposed destination before it asks for a password.
    ///
    /// - Throws: The refusals of ``write(_:to:)``.
    public static func check(_ url: URL) throws {
        let path = url.standardizedFileURL.path
        let folder = (path as NSString).deletingLastPathComponent
        try checkFolder(folder.isEmpty ? "." : folder)
        try checkDestination(path)
    }

    private static func checkFolder(_ folder: String) throws {
        var status = stat()
        guard stat(folder, &status) == 0 else { throw fileError(errno) }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw MedVaultError(.fileNotFound, field: "output", reason: "the output's folder is not a folder")
        }
        if status.st_mode & (S_IWOTH | S_IWGRP) != 0, status.st_mode & S_ISVTX == 0 {
            throw MedVaultError(.permissionDenied, field: "output",
                                reason: "other users may write to the output's folder; choose a private folder")
        }
        // Its owner may rename or replace any file in it, sticky bit or not.
        if status.st_uid != geteuid(), status.st_uid != 0 {
            throw MedVaultError(.permissionDenied, field: "output",
                                reason: "the output's folder belongs to another user; choose a folder of your own")
        }
    }

    private static func checkDestination(_ path: String) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw fileError(errno)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw MedVaultError(.permissionDenied, field: "output",
                                reason: "the output exists and is not a regular file (a link, folder or device)")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw MedVaultError(.permissionDenied, field: "output",
                                reason: "the output exists and other users may access it; remove it or chmod 600 it first")
        }
    }

    // MARK: - Plumbing

    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        try AtomicFile.writeAll(descriptor, bytes) { fileError($0) }
    }

    private static func fileError(_ code: Int32) -> MedVaultError {
        switch code {
        case ENOENT, ENOTDIR:
            return MedVaultError(.fileNotFound, field: "output", reason: "the output's folder does not exist")
        case EACCES, EPERM, EROFS:
            return MedVaultError(.permissionDenied, field: "output", reason: "the operating system refused to write the output")
        default:
            return MedVaultError(.storage, field: "output", reason: "writing the output failed (errno \(code))")
        }
    }
}
