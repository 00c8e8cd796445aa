import Foundation
import MedVaultCore
import MedVaultKeys

extension Vault {
    /// Records a finished key operation in the audit trail and checkpoints it.
    ///
    /// It does not throw: the operation is done (a new recovery key must still be shown,
    /// a changed password must not be reported as unchanged). When the entry cannot be
    /// written (the vault locked meanwhile, the disk full) the trail lacks it.
    func recordKeyOperation(_ action: AuditAction) async {
        try? await audit.record(action)
        try? await audit.checkpoint()
    }

    /// Counts a refused password or recovery key for the audit trail (see
    /// `UnlockFailureFile`): only when the keyring lock is free right now, so a wrong
    /// password is neither slower nor reported differently.
    static func countUnlockFailure(_ layout: VaultLayout, _ error: any Error) async {
        guard let error = error as? MedVaultError,
              error.code == .wrongPassword || error.code == .wrongRecoveryKey else { return }
        // An fsync'd file write: on a thread of its own, not a cooperative one.
        _ = try? await BlockingWork.run {
            guard let lock = try? VaultFileLock(layout.keyringLock) else { return }
            defer { lock.release() }
            guard (try? lock.tryLock(.exclusive)) == true else { return }
            try? UnlockFailureFile.increment(at: layout.unlockFailures,
                                             milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
        }
    }

    /// A vault just unlocked (or created): its audit key is installed, the unlock and
    /// what happened while it was locked recorded. Locks the vault on failure.
    static func auditingUnlock(_ vault: Vault) async throws -> Vault {
        do {
            if let anchor = try await vault.audit.unlocked(keyring: await vault.keys.keyring) {
                // Not a reason to refuse the unlock: without it the trail is checked as
                // before this version, and the next unlock records it again.
                try? await vault.recordInKeyring(anchor)
            }
        } catch {
            await vault.lock()
            throw error
        }
        // What extensions logged while the vault was locked (docs/extensions.md). Not a
        // reason to refuse the unlock: on an error the entries stay in the journal, and
        // calling `mergeDoseJournal()` throws it; refused entries are recorded in
        // `dose_journal_merged` with their error code.
        try? await vault.mergeDoseJournalAtUnlock()
        return vault
    }

    /// Writes the audit trail's record into the keyring (under the keyring lock, with the
    /// vault key: a version-1 keyring becomes version 2), unless another process of this
    /// vault recorded the same trail as far or further meanwhile.
    private func recordInKeyring(_ anchor: AuditAnchor) async throws {
        guard let auditKey = database.auditKeys.key, let trail = anchor.trail else { throw Vault.lockedError }
        try await keys.perform { operation in
            let current = await operation.keyring()
            if case .valid(let recorded) = try AuditAnchor.read(current, key: auditKey), recorded.pendingRestore == nil,
               let held = recorded.trail, held.first == trail.first, held.sequence >= trail.sequence {
                return
            }
            try await operation.commit(try current.replacingAuditRecord(anchor.encoded(key: auditKey),
                                                                        vaultKey: operation.vaultKey))
        }
    }
}
