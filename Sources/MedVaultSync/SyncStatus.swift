import Foundation
import MedVault
import MedVaultCore

/// What sync is doing, for an app to show (``SyncEngine/statusUpdates()``).
public enum SyncStatus: Sendable, Hashable {
    /// Not syncing. `lastSynced`: when the last pass of this engine succeeded (`nil`:
    /// none yet).
    case idle(lastSynced: Date?)
    /// A pass is running; `downloaded` envelopes of other devices applied so far.
    case syncing(downloaded: Int)
    /// The server could not be reached (offline, timed out). `retryAt`: when automatic
    /// sync tries again (``SyncEngine/syncNow()`` tries at once); `nil` after a manual pass.
    case offline(retryAt: Date?)
    /// The last pass failed with an error that may pass (the server busy or failing, a
    /// rate limit, a full disk…); automatic sync tries again at `until`.
    case waiting(until: Date, code: MedVaultError.Code)
    /// The last pass failed; automatic sync stops on such an error (revoked, not
    /// registered, locked…), a manual pass reports it here too.
    case failed(MedVaultError)
}

extension SyncEngine {
    /// The status now, then each change, until the task iterating it stops (the newest 16
    /// are kept for a slow reader).
    ///
    /// ```swift
    /// for await status in engine.statusUpdates() {
    ///     switch status {
    ///     case .syncing(let downloaded): banner.show("Syncing… \(downloaded)")
    ///     case .offline(let retryAt): banner.show("Offline", retryAt)
    ///     default: banner.hide()
    ///     }
    /// }
    /// ```
    public func statusUpdates() -> AsyncStream<SyncStatus> {
        let (updates, output) = AsyncStream<SyncStatus>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        statusObservers[id] = output
        output.yield(status)
        output.onTermination = { _ in Task { await self.removeStatusObserver(id) } }
        return updates
    }

    private func removeStatusObserver(_ id: UUID) {
        statusObservers[id] = nil
    }

    /// Sets the status and tells the observers when it changed.
    func setStatus(_ new: SyncStatus) {
        guard new != status else { return }
        status = new
        for observer in statusObservers.values { observer.yield(new) }
    }

    /// The status after a pass failed with `error` (automatic sync refines it with its
    /// retry time, ``noteRetry(after:in:)``); a cancelled pass goes back to idle.
    func status(after error: any Error) -> SyncStatus {
        if error is CancellationError { return .idle(lastSynced: lastSynced) }
        let failure = error as? MedVaultError ?? MedVaultError(.storage, reason: "the sync pass failed")
        switch failure.code {
        case .cancelled: return .idle(lastSynced: lastSynced)
        case .offline, .timeout: return .offline(retryAt: nil)
        default: return .failed(failure)
        }
    }

    /// Automatic sync ended: a retry it promised will not come (unless a new loop started
    /// meanwhile, whose status stands).
    func automaticSyncEnded() {
        guard !nowSignal.hasLoop else { return }
        switch status {
        case .offline(.some): setStatus(.offline(retryAt: nil))
        case .waiting(_, let code): setStatus(.failed(MedVaultError(code, reason: "automatic sync stopped before its retry")))
        default: break
        }
    }

    /// Automatic sync backs off `wait` after `failure`.
    func noteRetry(after failure: MedVaultError, in wait: Duration) {
        // A manual pass started meanwhile: its status stands.
        if case .syncing = status { return }
        let until = Date().addingTimeInterval(Double(wait.components.seconds)
                                              + Double(wait.components.attoseconds) / 1e18)
        switch failure.code {
        case .offline, .timeout: setStatus(.offline(retryAt: until))
        default: setStatus(.waiting(until: until, code: failure.code))
        }
    }
}
