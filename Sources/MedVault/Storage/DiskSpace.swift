import Foundation
import MedVaultCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Free-space checks made before an operation that writes a whole copy of the database.
enum DiskSpace {
    /// Room kept free beyond the copy itself: SQLite's journal of the copy, the keyring.
    static let margin = 4 << 20

    /// The bytes a re-encrypted copy of `database` needs: the file and its WAL (whose
    /// pages the copy also holds), plus ``margin``.
    static func bytesNeededForCopy(of database: URL) -> Int {
        DatabaseKeyChange.fileSize(database) + DatabaseKeyChange.fileSize(URL(fileURLWithPath: database.path + "-wal")) + margin
    }

    /// The bytes available to this user on the file system holding `folder`, or `nil`
    /// when the system does not say.
    static func availableBytes(in folder: URL) -> Int? {
        var info = statvfs()
        guard statvfs(folder.path, &info) == 0 else { return nil }
        let (bytes, overflow) = Int(info.f_bavail).multipliedReportingOverflow(by: Int(info.f_frsize))
        return overflow ? Int.max : bytes
    }

    /// Throws `diskFull` when the disk lacks room for a copy of `database`.
    ///
    /// - Parameter available: The free space (for tests); measured when `nil`.
    static func requireRoomForCopy(of database: URL, available: Int? = nil) throws {
        let needed = bytesNeededForCopy(of: database)
        guard let free = available ?? availableBytes(in: database.deletingLastPathComponent()) else { return }
        guard free >= needed else {
            throw MedVaultError(.diskFull, reason: """
                rotating the key writes a re-encrypted copy of \(database.lastPathComponent) beside it: \
                it needs \(megabytes(needed)) free and the disk has \(megabytes(free)); free space and try again
                """)
        }
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
