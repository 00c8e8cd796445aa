import Foundation
import MedVaultCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks on the database file made before SQLCipher touches it, so that a file
/// that is not a MedVault database is refused without being modified.
enum DatabaseFile {
    struct Inspection {
        /// The file was created by this open (it did not exist before).
        let isNew: Bool
    }

    private static let plainSQLiteHeader = Array("SQLite format 3\0".utf8)

    static func inspect(_ url: URL, mode: DatabasePool.OpenMode, pageSize: Int) throws -> Inspection {
        let path = url.path
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            guard code == ENOENT else { throw fileError(code, "reading the database file's attributes") }
            guard mode == .createIfMissing else {
                throw MedVaultError(.fileNotFound, reason: "there is no database file at the given location")
            }
            // Created empty with mode 0600 before SQLite sees it; SQLite gives the
            // -wal and -shm files the same permissions.
            let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw fileError(errno, "creating the database file") }
            close(descriptor)
            return Inspection(isNew: true)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw MedVaultError(.notADatabase, reason: "the database path is not a regular file")
        }
        guard access(path, R_OK | W_OK) == 0 else {
            throw fileError(errno, "opening the database file for reading and writing")
        }
        let size = Int(status.st_size)
        if size == 0 {
            throw MedVaultError(.notADatabase, reason: "the database file is empty")
        }
        let header = try readPrefix(path, count: plainSQLiteHeader.count)
        if header == plainSQLiteHeader {
            throw MedVaultError(.notADatabase,
                                reason: "the file is an unencrypted SQLite database; MedVault refuses to use it")
        }
        if size % pageSize != 0 {
            throw MedVaultError(.notADatabase,
                                reason: "the file's length is not a whole number of pages: it is truncated or not a MedVault database")
        }
        return Inspection(isNew: false)
    }

    static func removeNewlyCreated(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            unlink(url.path + suffix)
        }
    }

    /// fsyncs the folder so that a newly created file's directory entry is durable.
    static func syncFolder(of url: URL) {
        let descriptor = open(url.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func readPrefix(_ path: String, count: Int) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw fileError(errno, "reading the database file") }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, count) }
        guard got >= 0 else { throw fileError(errno, "reading the database file") }
        return Array(bytes.prefix(got))
    }

    static func fileError(_ code: Int32, _ context: String) -> MedVaultError {
        switch code {
        case ENOENT, ENOTDIR:
            return MedVaultError(.fileNotFound, reason: "\(context): no such file or folder")
        case EACCES, EPERM, EROFS:
            return MedVaultError(.permissionDenied, reason: "\(context): permission denied")
        default:
            let text = String(cString: strerror(code))
            return MedVaultError(.storage, reason: "\(context): \(text)")
        }
    }
}
