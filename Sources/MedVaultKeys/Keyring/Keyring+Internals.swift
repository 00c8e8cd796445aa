import Foundation
import MedVaultCore

extension Keyring {
    /// Builds a keyring and computes its authentication tag.
    /// Builds a keyring and computes its authentication tag. With an audit record it is
    /// of format version 2, without one of version 1.
    static func assemble(
        vaultID: UUID, cipherSettings: CipherSettings, slots: [KeySlot], generation: UInt64,
        current: WrappedKey, pending: WrappedKey?, auditRecord: [UInt8]? = nil, vaultKey: SecureBytes
    ) throws -> Keyring {
        let untagged = Keyring(
            vaultID: vaultID, cipherSettings: cipherSettings, slots: slots,
            databaseKeyGeneration: generation, wrappedCurrentKey: current, wrappedPendingKey: pending,
            authenticationTag: [], auditRecord: auditRecord
        )
        let tag = try KeyWrap.headerMAC(body: KeyringCodec.body(of: untagged), vaultKey: vaultKey, vaultID: vaultID)
        return untagged.tagged(tag)
    }

    /// The same keyring with another authentication tag.
    func tagged(_ tag: [UInt8]) -> Keyring {
        Keyring(vaultID: vaultID, cipherSettings: cipherSettings, slots: slots, databaseKeyGeneration: databaseKeyGeneration,
                wrappedCurrentKey: wrappedCurrentKey, wrappedPendingKey: wrappedPendingKey, authenticationTag: tag,
                auditRecord: auditRecord)
    }

    /// The same keyring with other slots or database keys, re-tagged under `vaultKey`; its
    /// audit record is kept (it belongs to this device's trail).
    func with(
        slots: [KeySlot]? = nil, generation: UInt64? = nil, current: WrappedKey? = nil,
        pending: WrappedKey??, vaultKey: SecureBytes
    ) throws -> Keyring {
        try Self.assemble(
            vaultID: vaultID, cipherSettings: cipherSettings, slots: slots ?? self.slots,
            generation: generation ?? databaseKeyGeneration, current: current ?? wrappedCurrentKey,
            pending: pending ?? wrappedPendingKey, auditRecord: auditRecord, vaultKey: vaultKey
        )
    }

    /// The same keyring with another audit record (docs/keyring-format.md, "Audit
    /// record"). The record is authenticated by its own tag under the audit key, outside
    /// the header MAC, so replacing one needs no vault key; turning a version-1 keyring
    /// into a version-2 one changes the body's version, which the header MAC covers, and
    /// needs `vaultKey` (the keyring's tag is checked under it first).
    ///
    /// - Throws: `locked` when a version-1 keyring gets its first record without a vault
    ///   key; `corrupted` when its tag does not verify under `vaultKey`; `invalidArgument`
    ///   for a record that is not ``AuditAnchor/byteCount`` bytes.
    package func replacingAuditRecord(_ record: [UInt8], vaultKey: SecureBytes?) throws -> Keyring {
        guard record.count == AuditAnchor.byteCount else {
            throw MedVaultError(.invalidArgument, reason: "a keyring's audit record has a fixed size")
        }
        if auditRecord != nil {
            return Keyring(vaultID: vaultID, cipherSettings: cipherSettings, slots: slots,
                           databaseKeyGeneration: databaseKeyGeneration, wrappedCurrentKey: wrappedCurrentKey,
                           wrappedPendingKey: wrappedPendingKey, authenticationTag: authenticationTag, auditRecord: record)
        }
        guard let vaultKey else {
            throw MedVaultError(.locked, reason: "a keyring's first audit record needs the vault key")
        }
        try verifyAuthenticationTag(vaultKey: vaultKey)
        return try Self.assemble(vaultID: vaultID, cipherSettings: cipherSettings, slots: slots,
                                 generation: databaseKeyGeneration, current: wrappedCurrentKey,
                                 pending: wrappedPendingKey, auditRecord: record, vaultKey: vaultKey)
    }

    /// This keyring in format version 1: without its audit record (this device's, see
    /// ``AuditAnchor``), re-tagged under `vaultKey`, whose tag it must verify under first.
    /// What a device publishes for the others, so that devices of earlier builds still read it.
    ///
    /// - Throws: `corrupted` when the tag does not verify under `vaultKey`.
    package func withoutAuditRecord(vaultKey: SecureBytes) throws -> Keyring {
        guard auditRecord != nil else { return self }
        try verifyAuthenticationTag(vaultKey: vaultKey)
        return try Self.assemble(vaultID: vaultID, cipherSettings: cipherSettings, slots: slots,
                                 generation: databaseKeyGeneration, current: wrappedCurrentKey,
                                 pending: wrappedPendingKey, auditRecord: nil, vaultKey: vaultKey)
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
    func open(_ slot: KeySlot, kek: SecureBytes) -> SecureBytes? {
        let header = KeyringCodec.slotHeader(kind: slot.kind, id: slot.id, derivation: slot.derivation)
        let associatedData = KeyWrap.slotAssociatedData(vaultID: vaultID, header: header)
        return KeyWrap.open(slot.wrapped, under: kek, associatedData: associatedData)
    }

    func openPending(_ wrapped: WrappedKey, vaultKey: SecureBytes) throws -> SecureBytes {
        guard let key = KeyWrap.open(
            wrapped, under: try KeyWrap.key(vaultKey),
            associatedData: KeyWrap.databaseKeyAssociatedData(vaultID: vaultID, role: .pending, generation: databaseKeyGeneration + 1
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
    ) throws -> (slot: KeySlot, kek: SecureBytes) {
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
    ) throws -> (slot: KeySlot, kek: SecureBytes) {
        let salt = randomBytes(32)
        let kek = try KeyWrap.recoveryKEK(recoveryKey, salt: salt)
        let slot = try makeSlot(kind: .recovery, derivation: .hkdfSHA256(salt: salt), kek: kek,
                                vaultID: vaultID, vaultKey: vaultKey)
        return (slot, kek)
    }

    static func makeSlot(
        kind: KeySlot.Kind, derivation: KeySlot.KeyDerivation, kek: SecureBytes, vaultID: UUID,
        vaultKey: SecureBytes, id: UUID = UUID()
    ) throws -> KeySlot {
        let header = KeyringCodec.slotHeader(kind: kind, id: id, derivation: derivation)
        let associatedData = KeyWrap.slotAssociatedData(vaultID: vaultID, header: header)
        let wrapped = try KeyWrap.seal(vaultKey, under: kek, associatedData: associatedData)
        return KeySlot(id: id, kind: kind, derivation: derivation, wrapped: wrapped)
    }

    package static func randomBytes(_ count: Int) -> [UInt8] {
        SecureRandom.bytes(count)
    }
}
