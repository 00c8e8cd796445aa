import Foundation
import MedVaultCore

extension Vault {
    // MARK: - Observation

    /// Notifications after each commit that changed one of `tables`.
    ///
    /// Changes committed after this returns are reported: this vault's own commits
    /// (repository writes and app tables' logged writes) right after they commit; another
    /// process's (or another `Vault` value's) at the next poll
    /// (``setChangePollingInterval(_:)``, every second by default) or when you call
    /// ``checkForExternalChanges()``. Only logged tables notify: MedVault's record
    /// tables and app tables that opted in with
    /// ``DatabaseConnection/logChange(in:id:operation:version:)``.
    /// Commits that arrive while a notification is being computed are reported
    /// together in the next one.
    ///
    /// ```swift
    /// for await change in try await vault.changeNotifications(in: [.patient]) {
    ///     print("patients changed up to", change.through)
    /// }
    /// ```
    ///
    /// The sequence ends when the task iterating it is cancelled or the vault is locked.
    ///
    /// - Parameter tables: The tables to watch; `nil` watches every logged table.
    /// - Throws: `locked`.
    public func changeNotifications(in tables: Set<VaultTable>? = nil) async throws -> AsyncStream<VaultChange> {
        try await changeFeed.subscribe(tables, coalescing: false)
    }

    /// Observes a value read from the vault: yields it once, then again after each
    /// commit that changed one of `tables` — only when the new value differs from the
    /// last one yielded.
    ///
    /// ```swift
    /// // In a SwiftUI view: .task { for try await list in vault.observe(tables: [.patient]) { … } }
    /// for try await patients in vault.observe(tables: [.patient], { vault in
    ///     try await vault.patients.list(.active)
    /// }) {
    ///     show(patients)
    /// }
    /// ```
    ///
    /// Bursts coalesce: commits made while `fetch` runs lead to one more fetch, not one
    /// per commit, so every yielded value is fresh but intermediate states may be
    /// skipped. Other processes' commits are seen as described in
    /// ``changeNotifications(in:)``.
    ///
    /// The sequence finishes when the iterating task is cancelled (the running `fetch`
    /// is cancelled too) or when the vault is locked — normally, without an error. It
    /// ends with `fetch`'s error when `fetch` throws anything else.
    ///
    /// - Parameters:
    ///   - tables: The tables `fetch` reads; `nil` re-reads after a change to any
    ///     logged table.
    ///   - fetch: Reads the value. It may run concurrently with writes; each run sees
    ///     the state after the commits that triggered it (or later).
    /// - Returns: The values, de-duplicated with `==`.
    public func observe<Value: Equatable & Sendable>(
        tables: Set<VaultTable>? = nil, _ fetch: @escaping @Sendable (Vault) async throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task { [self] in
            do {
                // Subscribed before the first read: a commit in between is not missed.
                let changes = try await changeFeed.subscribe(tables, coalescing: true)
                var last = try await fetch(self)
                continuation.yield(last)
                for await _ in changes {
                    let value = try await fetch(self)
                    if value != last {
                        last = value
                        continuation.yield(value)
                    }
                }
                continuation.finish()
            } catch let error as MedVaultError where error.code == .locked || error.code == .cancelled {
                continuation.finish()
            } catch is CancellationError {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Checks now for changes committed by another process (or another `Vault` value
    /// on the same folder) and notifies the observers they concern. When it returns,
    /// those notifications have been delivered to the observers' sequences.
    ///
    /// Useful when the app knows another process wrote (an extension finished, the
    /// app became active) and does not want to wait for the next poll.
    public func checkForExternalChanges() async {
        await changeFeed.check()
    }

    /// Sets how often the vault polls for other processes' commits while something
    /// observes it (each poll is one read of the change log's newest sequence); `nil`
    /// stops polling. The default is every second.
    public func setChangePollingInterval(_ interval: Duration?) async {
        await changeFeed.setPollingInterval(interval)
    }
}
