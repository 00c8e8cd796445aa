import Foundation
import MedVaultCore

/// The self-check every keyring mutation runs before it returns the new keyring.
///
/// A keyring is written over the only copy of the vault's keys: a slot sealed around
/// the wrong bytes (a wiped key read as zeros, a bug in a later change) would lock the
/// owner out for good once written. So a mutation proves the keyring it built, with the
/// keys it has in hand, before anyone can write it:
///
/// - the new slot (if any) opens with the KEK just used and yields the same vault key;
/// - the current (and pending) database key unwraps under the vault key;
/// - the authentication tag verifies under the vault key;
/// - the serialised file decodes back to the same keyring (so it passes the limits
///   checked on open, ``Argon2Parameters/openingLimits``).
///
/// A failed proof throws `MedVaultError.Code.corrupted`; the caller has written nothing.
extension Keyring {
    /// A slot to re-open during the proof: its id, the KEK it was sealed under.
    struct SlotProof {
        let id: UUID
        let kek: SecureBytes
    }

    static let proofFailure = MedVaultError(.corrupted, reason: "the new keyring failed its self-check; nothing was written")

    /// Returns `self` when it is sound under `vaultKey` (see the extension's discussion).
    ///
    /// - Parameters:
    ///   - vaultKey: The vault key every slot must yield.
    ///   - newSlot: The slot just made and its KEK, or `nil`.
    ///   - expectedPendingKey: The pending database key the keyring must hold, or `nil`.
    ///   - expectedCurrentKey: The current database key the keyring must hold, or `nil`.
    /// - Throws: `MedVaultError.Code.corrupted` when any check fails; `locked` when
    ///   `vaultKey` was wiped meanwhile.
    func proveSound(
        vaultKey: SecureBytes, newSlot: SlotProof? = nil,
        expectedCurrentKey: SecureBytes? = nil, expectedPendingKey: SecureBytes? = nil
    ) throws -> Keyring {
        guard !vaultKey.wasWiped else { throw SecureBytes.wipedError }
        do {
            if let newSlot {
                guard let slot = slots.first(where: { $0.id == newSlot.id }),
                      let opened = open(slot, kek: newSlot.kek) else { throw Self.proofFailure }
                defer { opened.wipe() }
                guard opened == vaultKey else { throw Self.proofFailure }
            }
            let current = try databaseKey(vaultKey: vaultKey)
            defer { current.wipe() }
            if let expectedCurrentKey, !(current == expectedCurrentKey) { throw Self.proofFailure }
            if let wrappedPendingKey {
                let pending = try openPending(wrappedPendingKey, vaultKey: vaultKey)
                defer { pending.wipe() }
                if let expectedPendingKey, !(pending == expectedPendingKey) { throw Self.proofFailure }
            } else if expectedPendingKey != nil {
                throw Self.proofFailure
            }
            guard try Keyring(serialized: serialized()) == self else { throw Self.proofFailure }
            return self
        } catch let error as MedVaultError where error.code == .locked {
            throw error
        } catch {
            throw Self.proofFailure
        }
    }
}
