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
final class WALLockHolder: @unchecked Sendable {
    // Safety of @unchecked Sendable: `process` and `lifeline` are set once in init and
    // only used by release(), which TestProcess (its wait status under a lock) and
    // FileHandle allow from any thread.
    private let process: TestProcess
    private let lifeline: Pipe

    /// SQLite's lock indexes on the `-shm` file.
    static let checkpointLock = 1

    /// Starts the child and waits until it holds lock `index` of `database`'s `-shm` file.
    ///
    /// - Throws: `invalidArgument` when it could not take the lock (python3 missing, no `-shm`).
    init(_ database: URL, lockIndex index: Int) throws {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", PythonTestServer.scripts.appendingPathComponent("hold_wal_lock.py").path,
                             database.path + "-shm", String(index)]
        let output = Pipe(), lifeline = Pipe()
        process.standardInput = lifeline
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard String(decoding: line, as: UTF8.self).hasPrefix("LOCKED") else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw MedVaultError(.invalidArgument, reason: "the lock holder could not take WAL lock \(index)")
        }
        self.process = process
        self.lifeline = lifeline
    }

    deinit { release() }

    /// Lets go of the lock (idempotent) and waits for the child to exit.
    func release() {
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
