import Foundation
import MedVaultCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Recognises an out-of-space failure, so that it is reported as
/// `MedVaultError.Code.diskFull` rather than as a generic I/O error.
///
/// SQLite reports a failed write as `SQLITE_FULL`, but a failed `-shm` or `-wal`
/// extension (which even a read needs) as an `SQLITE_IOERR_*` code, and SQLCipher 3.4.1's
/// SQLite 3.15 has no `sqlite3_system_errno`. For those, the folder's free space decides.
enum StorageSpace {
    /// The advice every disk-full error carries.
    static let diskFullAdvice = "the disk is full: free space and try again"

    /// Below this many available bytes a failed I/O is taken as a full disk: less than
    /// one WAL frame plus one shared-memory region (32 KiB) cannot serve any transaction.
    static let exhaustedThreshold: UInt64 = 64 * 1024

    /// Whether `code` is an `errno` that means "no space" (`ENOSPC`, or `EDQUOT` for a quota).
    static func isOutOfSpace(errno code: Int32) -> Bool {
        code == ENOSPC || code == EDQUOT
    }

    /// The bytes an unprivileged writer may still use in the file system holding
    /// `path`, or `nil` when it cannot be told.
    static func availableBytes(at path: String) -> UInt64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// Whether the file system holding `folder` is (practically) out of space.
    static func isExhausted(folder: String) -> Bool {
        guard let available = availableBytes(at: folder.isEmpty ? "." : folder) else { return false }
        return available < exhaustedThreshold
    }
}
