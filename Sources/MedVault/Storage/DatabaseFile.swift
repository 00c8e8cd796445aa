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

    /// The files SQLite keeps beside a database.
    static let companionSuffixes = ["-wal", "-shm", "-journal"]

    static func inspect(_ url: URL, mode: VaultDatabase.OpenMode, pageSize: Int) throws -> Inspection {
        let path = url.path
        let name = url.lastPathComponent
        // Companions first: a planted link must be refused before anything is created.
        try checkCompanions(of: url)
        var status = stat()
        guard lstat(path, &status) == 0 else {
            let code = errno
            guard code == ENOENT else { throw fileError(code, "reading the attributes of \(name)") }
            guard mode == .createIfMissing else {
                throw MedVaultError(.fileNotFound, reason: "there is no database file at the given location")
            }
            // Created empty with mode 0600 before SQLite sees it; SQLite gives the
            // -wal and -shm files the same permissions. O_EXCL also refuses a link.
            let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw fileError(errno, "creating \(name)") }
            close(descriptor)
            return Inspection(isNew: true)
        }
        if (status.st_mode & S_IFMT) == S_IFLNK {
            throw MedVaultError(.notADatabase,
                                reason: "\(name) is a symbolic link; MedVault does not follow links in a vault folder")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw MedVaultError(.notADatabase, reason: "the database path \(name) is not a regular file")
        }
        guard access(path, R_OK | W_OK) == 0 else {
            throw fileError(errno, "opening \(name) for reading and writing")
        }
        let size = Int(status.st_size)
        if size == 0 {
            throw MedVaultError(.notADatabase, reason: "the database file is empty")
        }
        let header = try readPrefix(path, name: name, count: plainSQLiteHeader.count)
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

    /// Refuses a `-wal`, `-shm` or `-journal` beside `url` that is a symbolic link, not
    /// a regular file, or a regular file with other hard links: SQLite would follow it
    /// and truncate or overwrite whatever it points at. Absent companions are fine.
    ///
    /// - Throws: `storage` naming the file (its name only); nothing is touched.
    static func checkCompanions(of url: URL) throws {
        for suffix in companionSuffixes {
            if let problem = companionProblem(url.path + suffix) {
                let name = url.lastPathComponent + suffix
                throw MedVaultError(.storage, reason: "\(name) \(problem); MedVault refuses to open it. "
                                    + "Remove it if no MedVault process has the vault open")
            }
        }
    }

    /// Why the file at `path` must not be opened as a database companion, or `nil` when
    /// it is absent or a plain private file.
    static func companionProblem(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            return errno == ENOENT ? nil : "cannot be examined (\(String(cString: strerror(errno))))"
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return status.st_nlink == 1 ? nil : "has other hard links"
        case S_IFLNK:
            return "is a symbolic link"
        case S_IFDIR:
            return "is a folder, not a regular file"
        case S_IFIFO:
            return "is a named pipe, not a regular file"
        default:
            return "is not a regular file"
        }
    }

    static func removeNewlyCreated(_ url: URL) {
        for suffix in [""] + companionSuffixes {
            unlink(url.path + suffix)
        }
    }

    /// fsyncs the folder so that a newly created or renamed file's directory entry is durable.
    ///
    /// - Throws: `storage` (or `diskFull`) when the folder cannot be opened or synced:
    ///   the change may not survive a power loss.
    static func syncFolder(of url: URL) throws {
        let descriptor = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw fileError(errno, "opening the vault folder to sync it") }
        defer { close(descriptor) }
        // EINVAL: the file system does not sync folders (nothing more can be done).
        guard fsync(descriptor) == 0 || errno == EINVAL else {
            throw fileError(errno, "syncing the vault folder")
        }
    }

    /// Whether anything (even a link) is at the write-ahead log's path beside `path`.
    static func logExists(of path: String) -> Bool {
        var status = stat()
        return lstat(path + "-wal", &status) == 0
    }

    /// Whether the write-ahead log beside the database at `path` is a plain file of
    /// 0 bytes (`false` when it is absent, anything else, or cannot be examined).
    static func logIsEmpty(of path: String) -> Bool {
        var status = stat()
        guard lstat(path + "-wal", &status) == 0 else { return false }
        return (status.st_mode & S_IFMT) == S_IFREG && status.st_size == 0
    }

    /// fsyncs the write-ahead log beside the database at `path` (any descriptor of a
    /// file flushes all of it), then the folder: the log is usually new since the open,
    /// and its directory entry is durable only once the folder is synced (SQLite does it
    /// at its own handle's first sync, which a commit without a sync never made). A
    /// missing log has nothing to sync (the last connection checkpointed and removed it,
    /// syncing the database file).
    ///
    /// - Throws: `storage` when the log is a link or not a plain file, or cannot be
    ///   opened or synced (`diskFull` for a full disk).
    static func syncLog(of path: String) throws {
        let logPath = path + "-wal"
        if let problem = companionProblem(logPath) {
            throw MedVaultError(.storage, reason: "the write-ahead log \(problem); it could not be synced")
        }
        let descriptor = open(logPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { return }
            throw fileError(errno, "opening the write-ahead log to sync it")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw fileError(errno, "syncing the write-ahead log") }
        try syncFolder(of: URL(fileURLWithPath: logPath))
    }

    private static func readPrefix(_ path: String, name: String, count: Int) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { throw fileError(errno, "reading \(name)") }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, count) }
        guard got >= 0 else { throw fileError(errno, "reading \(name)") }
        return Array(bytes.prefix(got))
    }

    /// A `MedVaultError` for an `errno`, with `context` (which names the file, never
    /// its content) and what to do.
    static func fileError(_ code: Int32, _ context: String) -> MedVaultError {
        switch code {
        case ENOENT, ENOTDIR:
            return MedVaultError(.fileNotFound, reason: "\(context): no such file or folder")
        case EACCES, EPERM, EROFS:
            return MedVaultError(.permissionDenied, reason: "\(context): permission denied")
        case ENOSPC, EDQUOT:
            return MedVaultError(.diskFull, reason: "\(context): \(StorageSpace.diskFullAdvice)")
        case ELOOP:
            return MedVaultError(.storage, reason: "\(context): the path is a symbolic link, which MedVault does not follow")
        default:
            let text = String(cString: strerror(code))
            return MedVaultError(.storage, reason: "\(context): \(text)")
        }
    }
}
