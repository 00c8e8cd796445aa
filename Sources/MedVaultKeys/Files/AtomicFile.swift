import Foundation
import MedVaultCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// POSIX file operations shared by the keyring file and the file secret store:
/// atomic replacement, whole-file reads and overwrite-then-unlink destruction.
package enum AtomicFile {
    /// Largest file MedVault reads whole (keyrings are well under a kilobyte).
    static let maximumReadSize = 1 << 20

    /// Replaces the file at `url` with `bytes`: temporary file in the same folder (mode 0600),
    /// write, fsync, rename over the target, fsync the folder.
    ///
    /// Throws only before the rename (the old file is then untouched); once the new file
    /// is in place it returns normally, even when the folder's sync failed twice.
    static func write(_ bytes: UnsafeRawBufferPointer, to url: URL) throws {
        let directory = url.deletingLastPathComponent().path
        let suffix = String(UInt64.random(in: .min ... .max), radix: 16)
        let temporary = directory + "/" + temporaryPrefix(for: url) + suffix + temporarySuffix
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw posixError(errno, creating: true) }
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            guard fchmod(descriptor, 0o600) == 0 else { throw posixError(errno, file: url) }
            try writeAll(descriptor, bytes)
            guard fsync(descriptor) == 0 else { throw posixError(errno, file: url) }
        }
        guard rename(temporary, url.path) == 0 else { throw posixError(errno, file: url) }
        renamed = true
        // The new file is in place: reporting a failure now would make the caller
        // believe the old content is still there (a regenerated recovery key never
        // shown, a password "not changed" that was). The folder's sync is retried; if
        // it still fails, the write stands, durable up to the next folder sync.
        if (try? syncDirectory(directory)) == nil { _ = try? syncDirectory(directory) }
    }

    /// How the temporary files of ``write(_:to:)`` for `url` begin: a dot, the file's
    /// name, a dot; then random hex digits and ``temporarySuffix``.
    static func temporaryPrefix(for url: URL) -> String { "." + url.lastPathComponent + "." }

    /// How the temporary files of ``write(_:to:)`` end.
    static let temporarySuffix = ".tmp"

    /// Reads a whole file.
    ///
    /// The file is opened with `O_NOFOLLOW | O_NONBLOCK` and must be a regular file: a
    /// symbolic link, a named pipe (which would block forever), a device or a folder
    /// planted in its place is refused before a byte is read.
    ///
    /// - Throws: `.fileNotFound`, `.permissionDenied`, `.corrupted` (too large),
    ///   `.storage` (not a regular file, I/O error).
    static func read(_ url: URL) throws -> [UInt8] {
        let descriptor = try openRegularFile(url)
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw posixError(errno, file: url)
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= maximumReadSize else {
                throw MedVaultError(.corrupted, reason: "file is too large to be a keyring")
            }
        }
        return bytes
    }

    /// Reads a whole file into secure memory (for secrets); `nil` when it does not exist.
    ///
    /// Like ``read(_:)``, refuses anything but a regular file without following links.
    static func readSecret(_ url: URL) throws -> SecureBytes? {
        let descriptor: Int32
        do {
            descriptor = try openRegularFile(url)
        } catch let error as MedVaultError where error.code == .fileNotFound {
            return nil
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw posixError(errno, file: url) }
        let size = Int(status.st_size)
        guard size <= 4096 else { throw MedVaultError(.corrupted, reason: "stored secret is too large") }
        return try SecureBytes(count: size) { buffer in
            var done = 0
            while done < size {
                let count = systemRead(descriptor, buffer.baseAddress.map { $0 + done }, size - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw posixError(errno, file: url)
                }
                if count == 0 { throw MedVaultError(.corrupted, reason: "stored secret was truncated while read") }
                done += count
            }
        }
    }

    /// Opens `url` for reading without following a link or blocking on a pipe, and
    /// checks (on the open descriptor) that it is a regular file.
    private static func openRegularFile(_ url: URL) throws -> Int32 {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { throw posixError(errno, file: url) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw posixError(code, file: url)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw notRegular(url)
        }
        return descriptor
    }

    private static func notRegular(_ url: URL) -> MedVaultError {
        MedVaultError(.storage, reason: "\(url.lastPathComponent) is not a regular file; MedVault refuses to use it")
    }

    /// Overwrites the file with random bytes, fsyncs, unlinks it and fsyncs its folder.
    ///
    /// The file is opened with `O_NOFOLLOW` and must be a regular file with a single
    /// link: a symbolic or hard link planted in its place is refused, and whatever it
    /// points at is left untouched.
    static func destroy(_ url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { throw posixError(errno, file: url) }
        do {
            defer { close(descriptor) }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { throw posixError(errno, file: url) }
            guard (status.st_mode & S_IFMT) == S_IFREG else { throw notRegular(url) }
            guard status.st_nlink == 1 else {
                throw MedVaultError(.storage, reason: "\(url.lastPathComponent) has other hard links; "
                                    + "MedVault refuses to overwrite a file shared with another name")
            }
            let noise = SecureBytes.random(count: Int(status.st_size))
            try noise.withUnsafeBytes { try writeAll(descriptor, $0) }
            guard fsync(descriptor) == 0 else { throw posixError(errno, file: url) }
        }
        guard unlink(url.path) == 0 else { throw posixError(errno, file: url) }
        try syncDirectory(url.deletingLastPathComponent().path)
    }

    /// Removes a file if present (no overwrite).
    static func remove(_ url: URL) throws {
        guard unlink(url.path) == 0 || errno == ENOENT else { throw posixError(errno) }
    }

    // MARK: - Plumbing

    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        try writeAll(descriptor, bytes) { posixError($0) }
    }

    /// Writes all of `bytes` to `descriptor`, again after a short write or `EINTR`; any
    /// other failure throws `failure(errno)`. The private export writer (MedVault) shares it.
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer,
                                 failure: (Int32) -> any Error) throws {
        var done = 0
        while done < bytes.count {
            let count = systemWrite(descriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done)
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            done += count
        }
    }

    private static func syncDirectory(_ path: String) throws {
        let descriptor = open(path.isEmpty ? "." : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError(errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 || errno == EINVAL else { throw posixError(errno) }
    }

    static func posixError(_ code: Int32, creating: Bool = false, file: URL? = nil) -> MedVaultError {
        let name = file.map { "\($0.lastPathComponent): " } ?? ""
        switch code {
        case ENOENT:
            return MedVaultError(.fileNotFound, reason: creating ? "the folder does not exist" : "\(name)the file does not exist")
        case EACCES, EPERM, EROFS:
            return MedVaultError(.permissionDenied, reason: "\(name)the operating system refused access to the file")
        case ELOOP:
            return MedVaultError(.storage, reason: "\(name)the file is a symbolic link, which MedVault does not follow")
        case ENOSPC, EDQUOT:
            return MedVaultError(.diskFull, reason: "\(name)the disk is full: free space and try again")
        default:
            return MedVaultError(.storage, reason: "\(name)file operation failed (errno \(code))")
        }
    }
}

// The module-level read/write would be shadowed by static members named read/write.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
