import Crypto
import Foundation
import MedVaultCore

extension Keyring {
    /// Builds a keyring and computes its authentication tag.
    static func assemble(
        vaultID: UUID, cipherSettings: CipherSettings, slots: [KeySlot], generation: UInt64,
        current: WrappedKey, pending: WrappedKey?, vaultKey: SecureBytes
    ) throws -> Keyring {
        let untagged = Keyring(
            formatVersion: currentFormatVersion, vaultID: vaultID, cipherSettings: cipherSettings, slots: slots,
            databaseKeyGeneration: generation, wrappedCurrentKey: current, wrappedPendingKey: pending,
            authenticationTag: []
        )
        let tag = try KeyWrap.headerMAC(body: KeyringCodec.body(of: untagged), vaultKey: vaultKey, vaultID: vaultID)
        return Keyring(
            formatVersion: currentFormatVersion, vaultID: vaultID, cipherSettings: cipherSettings, slots: slots,
            databaseKeyGeneration: generation, wrappedCurrentKey: current, wrappedPendingKey: pending,
            authenticationTag: tag
        )
    }

    /// The same keyring with other slots or database keys, re-tagged under `vaultKey`.
    func with(
        slots: [KeySlot]? = nil, generation: UInt64? = nil, current: WrappedKey? = nil,
        pending: WrappedKey??, vaultKey: SecureBytes
    ) throws -> Keyring {
        try Self.assemble(
            vaultID: vaultID, cipherSettings: cipherSettings, slots: slots ?? self.slots,
            generation: generation ?? databaseKeyGeneration, current: current ?? wrappedCurrentKey,
            pending: pending ?? wrappedPendingKey, vaultKey: vaultKey
        )
    }

    /// Throws `MedVaultError.Code.corrupted` unless the authentication tag matches under `vaultKey`.
    func verifyAuthenticationTag(vaultKey: SecureBytes) throws {
        let expected = try KeyWrap.headerMAC(body: KeyringCodec.body(of: self), vaultKey: vaultKey, vaultID: vaultID)
        var difference: UInt8 = expected.count == authenticationTag.count ? 0 : 1
        for (left, right) in zip(expected, authenticationTag) { difference |= left ^ right }
        guard difference == 0 else {
            throw MedVaultError(.corrupted, reason: "keyring authentication failed: it was altered")
        }
    }

    /// Opens a slot with its KEK; `nil` when the KEK or the slot's header is wrong.
    func open(_ slot: KeySlot, kek: SymmetricKey) -> SecureBytes? {
        let header = KeyringCodec.slotHeader(kind: slot.kind, id: slot.id, derivation: slot.derivation)
        let associatedData = KeyWrap.slotAssociatedData(formatVersion: formatVersion, vaultID: vaultID, header: header)
        return KeyWrap.open(slot.wrapped, under: kek, associatedData: associatedData)
    }

    func openPending(_ wrapped: WrappedKey, vaultKey: SecureBytes) throws -> SecureBytes {
        guard let key = KeyWrap.open(
            wrapped, under: try KeyWrap.key(vaultKey),
            associatedData: KeyWrap.databaseKeyAssociatedData(
                formatVersion: formatVersion, vaultID: vaultID, role: .pending, generation: databaseKeyGeneration + 1
            )
        ) else {
            throw MedVaultError(.corrupted, reason: "the pending database key does not open")
        }
        return key
    }

    // MARK: - Slot factories

    /// A new password slot and the KEK it was sealed under (for ``proveSound(vaultKey:newSlot:)``).
    static func makePasswordSlot(
        _ password: Password, kdf: Argon2Parameters, vaultID: UUID, vaultKey: SecureBytes
    ) throws -> (slot: KeySlot, kek: SymmetricKey) {
        try kdf.checkUsableForNewSlot()
        let salt = randomBytes(kdf.saltLength)
        let derived = try Argon2id.deriveKey(password: password, salt: salt, parameters: kdf)
        defer { derived.wipe() }
        let kek = try KeyWrap.key(derived)
        let slot = try makeSlot(kind: .password, derivation: .argon2id(kdf, salt: salt), kek: kek,
                                vaultID: vaultID, vaultKey: vaultKey)
        return (slot, kek)
    }

    /// A new recovery slot and the KEK it was sealed under.
    static func makeRecoverySlot(
        _ recoveryKey: RecoveryKey, vaultID: UUID, vaultKey: SecureBytes
    ) throws -> (slot: KeySlot, kek: SymmetricKey) {
        let salt = randomBytes(32)
        let kek = try KeyWrap.recoveryKEK(recoveryKey, salt: salt)
        let slot = try makeSlot(kind: .recovery, derivation: .hkdfSHA256(salt: salt), kek: kek,
                                vaultID: vaultID, vaultKey: vaultKey)
        return (slot, kek)
    }

    static func makeSlot(
        kind: KeySlot.Kind, derivation: KeySlot.KeyDerivation, kek: SymmetricKey, vaultID: UUID,
        vaultKey: SecureBytes, id: UUID = UUID()
    ) throws -> KeySlot {
        let header = KeyringCodec.slotHeader(kind: kind, id: id, derivation: derivation)
        let associatedData = KeyWrap.slotAssociatedData(formatVersion: currentFormatVersion, vaultID: vaultID, header: header)
        let wrapped = try KeyWrap.seal(vaultKey, under: kek, associatedData: associatedData)
        return KeySlot(id: id, kind: kind, derivation: derivation, wrapped: wrapped)
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in generator.next() }
    }
}
