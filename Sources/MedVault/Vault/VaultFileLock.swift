import Foundation
import MedVaultCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory `flock(2)` lock on a file in the vault's folder: how processes (and
/// several `Vault` values in one process) that share a vault coordinate.
///
/// A vault has two lock files (see ``VaultLayout``):
///
/// - the **presence lock** (`records.medvault.lock`), held *shared* by every open
///   `Vault` for as long as it is open, and *exclusive* only by an operation that must
///   have the vault alone (key rotation, destroy, the open-time clean-up of abandoned
///   attachments);
/// - the **keyring lock** (`records.medvault.keyring.lock`), held *exclusive* for every
///   read-modify-write of the keyring (password and slot changes, recovery-key
///   regeneration, rotation from start to end) and for the whole of opening.
///
/// Nobody takes the presence lock exclusively without holding the keyring lock, so an
/// operation that holds the keyring lock may drop and retake its own shared presence
/// lock (Linux converts `flock` locks by unlocking first) without anyone slipping in.
///
/// `flock` locks belong to an open file description: they are released when the
/// descriptor is closed or the process dies, however it dies, so a crash never leaves
/// a vault locked. Descriptors are opened close-on-exec, so child processes do not
/// inherit them.
final class VaultFileLock: @unchecked Sendable {
    // Safety of @unchecked Sendable: `descriptor` is read and changed only while
    // holding `lock`; flock(2) itself is thread-safe.
    private let lock = NSLock()
    private var descriptor: Int32
    /// The lock file's name, for error messages.
    let name: String

    enum Mode {
        case shared
        case exclusive

        var operation: Int32 { self == .shared ? LOCK_SH : LOCK_EX }
    }

    /// Opens (creating with mode 0600 if needed) the lock file at `url`.
    ///
    /// - Throws: `permissionDenied` when the file is a symbolic link or not a regular
    ///   file (somebody planted it), or cannot be opened.
    init(_ url: URL) throws {
        name = url.lastPathComponent
        path = url.path
        descriptor = try Self.openFile(url)
    }

    /// The lock file's path.
    private let path: String

    private static func openFile(_ url: URL) throws -> Int32 {
        let opened = open(url.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard opened >= 0 else {
            let code = errno
            if code == ELOOP || code == EMLINK {
                throw MedVaultError(.permissionDenied,
                                    reason: "the vault's lock file \(url.lastPathComponent) is a symbolic link; remove it")
            }
            throw Self.error(code, url.lastPathComponent, "opening")
        }
        var status = stat()
        guard fstat(opened, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(opened)
            throw MedVaultError(.permissionDenied,
                                reason: "the vault's lock file \(url.lastPathComponent) is not a regular file; remove it")
        }
        return opened
    }

    /// Whether the locked descriptor is still the file at the path: a lock taken on a
    /// file that was since unlinked (by `destroy()`, or by hand) or replaced protects
    /// nothing, since the next process opens a new file.
    private func isCurrentFile() -> Bool {
        lock.withLock {
            var held = stat()
            var named = stat()
            guard descriptor >= 0, fstat(descriptor, &held) == 0, lstat(path, &named) == 0 else { return false }
            return held.st_dev == named.st_dev && held.st_ino == named.st_ino
        }
    }

    /// Drops the descriptor (and its lock) and opens the file at the path again.
    private func reopen() throws {
        let fresh = try Self.openFile(URL(fileURLWithPath: path))
        lock.withLock {
            if descriptor >= 0 { Self.unlockAndClose(descriptor) }
            descriptor = fresh
        }
    }

    /// Takes the lock without waiting, on the file the path names now.
    ///
    /// - Returns: `false` when another holder's lock conflicts.
    func tryLockCurrent(_ mode: Mode) throws -> Bool {
        for _ in 0..<8 {
            guard try tryLock(mode) else { return false }
            if isCurrentFile() { return true }
            try reopen()
        }
        throw MedVaultError(.vaultInUse, reason: "the vault's lock file \(name) keeps being replaced; try again")
    }

    deinit {
        if descriptor >= 0 { Self.unlockAndClose(descriptor) }
    }

    /// Takes the lock without waiting.
    ///
    /// - Returns: `false` when another holder's lock conflicts.
    func tryLock(_ mode: Mode) throws -> Bool {
        try lock.withLock {
            guard descriptor >= 0 else { throw MedVaultError(.locked, reason: "the vault is locked; open it again") }
            while true {
                if flock(descriptor, mode.operation | LOCK_NB) == 0 { return true }
                let code = errno
                if code == EINTR { continue }
                if code == EWOULDBLOCK || code == EAGAIN { return false }
                throw Self.error(code, name, "locking")
            }
        }
    }

    /// Takes the lock, polling while another holder's conflicts, for at most `timeout`.
    ///
    /// Polls rather than blocking in `flock` so that no thread of Swift's cooperative
    /// pool is held, and so that the wait has a bound.
    ///
    /// - Parameters:
    ///   - waitingFor: What the other holder is doing, for the error.
    ///   - shouldGiveUp: Checked between polls; `true` stops the wait with `locked`.
    /// - Throws: `vaultInUse` when the lock was not had within `timeout`; `cancelled`;
    ///   `locked` when `shouldGiveUp` said so.
    func lock(_ mode: Mode, timeout: Duration, waitingFor: String,
              giveUpIf shouldGiveUp: () -> Bool = { false }) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause = Duration.milliseconds(2)
        while try !tryLockCurrent(mode) {
            if shouldGiveUp() { throw MedVaultError(.locked, reason: "the vault is locked; open it again") }
            guard clock.now < deadline else {
                throw MedVaultError(.vaultInUse, reason: "\(waitingFor); try again when it has finished")
            }
            do {
                try await Task.sleep(for: pause)
            } catch {
                throw MedVaultError(.cancelled, reason: "the task was cancelled while waiting for the vault's lock")
            }
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    /// Turns this holder's shared lock into an exclusive one if nobody else holds the
    /// file; otherwise leaves it shared.
    ///
    /// Only call while holding the keyring lock: Linux implements the conversion as
    /// unlock-then-lock, and the shared lock is taken back at once after a refusal.
    ///
    /// - Returns: Whether this holder now has the file alone.
    func upgradeIfAlone() throws -> Bool {
        if try tryLock(.exclusive) { return true }
        // The conversion may have dropped the shared lock: take it back. Nobody can
        // hold the file exclusively meanwhile (they would need the keyring lock).
        guard try tryLock(.shared) else {
            throw MedVaultError(.vaultInUse, reason: "another process took the vault's presence lock out of turn")
        }
        return false
    }

    /// Turns an exclusive lock back into a shared one.
    func downgrade() {
        _ = try? tryLock(.shared)
    }

    /// Releases the lock and closes the file. Idempotent.
    func release() {
        lock.withLock {
            if descriptor >= 0 {
                Self.unlockAndClose(descriptor)
                descriptor = -1
            }
        }
    }

    /// Unlocks before closing: a child process being spawned at this moment holds a copy
    /// of the descriptor until it execs, and a lock is released by `close` only when the
    /// last copy closes; `LOCK_UN` releases it at once for every copy.
    private static func unlockAndClose(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func error(_ code: Int32, _ name: String, _ doing: String) -> MedVaultError {
        switch code {
        case EACCES, EPERM, EROFS:
            return MedVaultError(.permissionDenied, reason: "\(doing) the vault's lock file \(name): permission denied")
        case ENOSPC, EDQUOT:
            return MedVaultError(.diskFull, reason: "\(doing) the vault's lock file \(name): the disk is full; free space and try again")
        case ENOENT, ENOTDIR:
            return MedVaultError(.fileNotFound, reason: "\(doing) the vault's lock file \(name): the vault's folder does not exist")
        default:
            return MedVaultError(.storage, reason: "\(doing) the vault's lock file \(name): \(String(cString: strerror(code)))")
        }
    }
}
