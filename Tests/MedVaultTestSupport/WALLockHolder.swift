import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MedVaultCore

/// Another process holding one of SQLite's WAL locks on a database (`Tests/Scripts/
/// hold_wal_lock.py`), as a second program checkpointing or reading the same vault would:
/// POSIX byte locks of this process never conflict with its own, so only a child can.
/// The child exits when its standard input closes, so a test process that dies takes it along.
package final class WALLockHolder: @unchecked Sendable {
    // Safety of @unchecked Sendable: `child` is set once in init and only used by
    // release(), which TestProcess (its wait status under a lock) and FileHandle allow
    // from any thread.
    private let child: PythonChild

    /// SQLite's lock indexes on the `-shm` file.
    package static let checkpointLock = 1

    /// Starts the child and waits until it holds lock `index` of `database`'s `-shm` file.
    ///
    /// - Throws: `invalidArgument` when it could not take the lock (python3 missing, no `-shm`).
    package init(_ database: URL, lockIndex index: Int) async throws {
        let child = try await PythonChild(script: "hold_wal_lock.py", arguments: [database.path + "-shm", String(index)])
        guard child.firstLine.hasPrefix("LOCKED") else {
            child.stop()
            throw MedVaultError(.invalidArgument, reason: "the lock holder could not take WAL lock \(index)")
        }
        self.child = child
    }

    deinit { release() }

    /// Lets go of the lock (idempotent) and waits for the child to exit.
    package func release() {
        try? child.lifeline.fileHandleForWriting.close()
        child.process.waitUntilExit()
    }
}
