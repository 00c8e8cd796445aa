import Foundation
import MedVaultCore

/// The keyring's binary format, versions 1 and 2 (see `docs/keyring-format.md`).
enum KeyringCodec {
    static let magic = Array("MVKEYRNG".utf8)
    static let macLength = 32
    static let checksumLength = 32
    static let maximumSlots = 32
    static let maximumPasswordSlots = 1

    enum KDFIdentifier {
        static let argon2id: UInt8 = 1
        static let hkdfSHA256: UInt8 = 2
        static let storedSecret: UInt8 = 3
    }

    // MARK: - Encoding

    /// Everything the header MAC covers: the file up to, not including, the MAC.
    static func body(of keyring: Keyring) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: magic)
        writer.append(keyring.formatVersion)
        writer.append(UInt16(0))
        writer.append(keyring.vaultID)
        append(keyring.cipherSettings, to: &writer)
        writer.append(keyring.databaseKeyGeneration)
        append(keyring.wrappedCurrentKey, to: &writer)
        if let pending = keyring.wrappedPendingKey {
            writer.append(UInt8(1))
            append(pending, to: &writer)
        } else {
            writer.append(UInt8(0))
        }
        writer.append(UInt8(keyring.slots.count))
        for slot in keyring.slots {
            let header = slotHeader(kind: slot.kind, id: slot.id, derivation: slot.derivation)
            writer.append(UInt16(header.count + WrappedKey.encodedLength))
            writer.append(raw: header)
            append(slot.wrapped, to: &writer)
        }
        return writer.bytes
    }

    /// The slots of `slots` in their file encoding, one after the other (what
    /// `Keyring.sharedSlotsDigest` hashes).
    static func encoded(_ slots: [KeySlot]) -> [UInt8] {
        var writer = ByteWriter()
        for slot in slots {
            writer.append(raw: slotHeader(kind: slot.kind, id: slot.id, derivation: slot.derivation))
            append(slot.wrapped, to: &writer)
        }
        return writer.bytes
    }

    /// The complete file: body, header MAC, SHA-256 checksum.
    static func file(of keyring: Keyring) -> [UInt8] {
        let bytes = body(of: keyring) + keyring.authenticationTag + (keyring.auditRecord ?? [])
        return bytes + checksum(bytes)
    }

    /// SHA-256 over everything before the checksum.
    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        SHA256Digest.of(Data(bytes)).bytes
    }

    /// A slot's header: kind, id, KDF identifier and parameters.
    static func slotHeader(kind: KeySlot.Kind, id: UUID, derivation: KeySlot.KeyDerivation) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(kind.rawValue)
        writer.append(id)
        switch derivation {
        case .argon2id(let parameters, let salt):
            writer.append(KDFIdentifier.argon2id)
            writer.append(parameters.memoryKiB)
            writer.append(parameters.iterations)
            writer.append(parameters.parallelism)
            writer.append(UInt8(parameters.outputLength))
            writer.append(short: salt)
        case .hkdfSHA256(let salt):
            writer.append(KDFIdentifier.hkdfSHA256)
            writer.append(short: salt)
        case .storedSecret(let account):
            writer.append(KDFIdentifier.storedSecret)
            writer.append(short: Array(account.utf8))
        }
        return writer.bytes
    }

    private static func append(_ settings: CipherSettings, to writer: inout ByteWriter) {
        writer.append(short: Array(settings.cipher.utf8))
        writer.append(settings.pageSize)
        writer.append(UInt8(settings.usesHMAC ? 1 : 0))
        writer.append(short: Array(settings.hmacAlgorithm.utf8))
        writer.append(short: Array(settings.kdfAlgorithm.utf8))
        writer.append(settings.kdfIterations)
        writer.append(settings.fastKDFIterations)
        writer.append(settings.compatibility)
    }

    private static func append(_ wrapped: WrappedKey, to writer: inout ByteWriter) {
        writer.append(raw: wrapped.nonce)
        writer.append(raw: wrapped.ciphertext)
        writer.append(raw: wrapped.tag)
    }

    // MARK: - Decoding

    /// Decodes a whole file. The checksum is checked first, so any change anywhere is
    /// `MedVaultError.Code.corrupted` before a field is interpreted.
    static func decode(_ bytes: [UInt8]) throws -> Keyring {
        guard bytes.count > magic.count + checksumLength else {
            throw MedVaultError(.corrupted, reason: "keyring is empty or truncated")
        }
        let checked = bytes[..<(bytes.count - checksumLength)]
        guard checksum(checked) == Array(bytes[(bytes.count - checksumLength)...]) else {
            throw MedVaultError(.corrupted, reason: "keyring checksum mismatch")
        }
        var reader = ByteReader(Array(checked))
        guard try reader.raw(magic.count) == magic else {
            throw MedVaultError(.corrupted, reason: "not a MedVault keyring")
        }
        let version = try reader.uint16()
        guard version <= Keyring.currentFormatVersion else {
            throw MedVaultError(.schemaTooNew, reason: "keyring format is newer than this MedVault")
        }
        guard version >= 1, try reader.uint16() == 0 else {
            throw MedVaultError(.corrupted, reason: "keyring version or flags are invalid")
        }
        let vaultID = try reader.uuid()
        let settings = try decodeCipherSettings(&reader)
        let generation = try reader.uint64()
        let current = try decodeWrappedKey(&reader)
        let pending: WrappedKey?
        switch try reader.uint8() {
        case 0: pending = nil
        case 1: pending = try decodeWrappedKey(&reader)
        default: throw MedVaultError(.corrupted, reason: "keyring pending flag is invalid")
        }
        let slotCount = Int(try reader.uint8())
        guard (1...maximumSlots).contains(slotCount) else {
            throw MedVaultError(.corrupted, reason: "keyring slot count is invalid")
        }
        var slots: [KeySlot] = []
        for _ in 0..<slotCount {
            slots.append(try decodeSlot(&reader))
        }
        guard Set(slots.map(\.id)).count == slots.count else {
            throw MedVaultError(.corrupted, reason: "keyring slot ids are not unique")
        }
        // Each password slot costs one Argon2 derivation per unlock attempt, before the
        // MAC can be checked; MedVault writes exactly one (see Argon2Parameters.OpeningLimits).
        guard slots.filter({ $0.kind == .password }).count <= maximumPasswordSlots else {
            throw MedVaultError(.corrupted, reason: "keyring has more than one password slot")
        }
        let tag = try reader.raw(macLength)
        // Version 2: this device's audit record, authenticated by its own tag (AuditAnchor).
        let auditRecord = version >= 2 ? try reader.raw(AuditAnchor.byteCount) : nil
        guard reader.isAtEnd else { throw MedVaultError(.corrupted, reason: "keyring has trailing bytes") }
        return Keyring(
            vaultID: vaultID, cipherSettings: settings, slots: slots,
            databaseKeyGeneration: generation, wrappedCurrentKey: current, wrappedPendingKey: pending,
            authenticationTag: tag, auditRecord: auditRecord
        )
    }

    private static func decodeCipherSettings(_ reader: inout ByteReader) throws -> CipherSettings {
        let cipher = try reader.shortString()
        let pageSize = try reader.uint32()
        let hmacFlag = try reader.uint8()
        let settings = CipherSettings(
            cipher: cipher, pageSize: pageSize, usesHMAC: hmacFlag == 1,
            hmacAlgorithm: try reader.shortString(), kdfAlgorithm: try reader.shortString(),
            kdfIterations: try reader.uint32(), fastKDFIterations: try reader.uint32(),
            compatibility: try reader.uint8()
        )
        guard hmacFlag <= 1, (try? settings.validate()) != nil else {
            throw MedVaultError(.corrupted, reason: "keyring cipher settings are invalid")
        }
        return settings
    }

    private static func decodeWrappedKey(_ reader: inout ByteReader) throws -> WrappedKey {
        WrappedKey(
            nonce: try reader.raw(WrappedKey.nonceLength),
            ciphertext: try reader.raw(WrappedKey.keyLength),
            tag: try reader.raw(WrappedKey.tagLength)
        )
    }

    private static func decodeSlot(_ reader: inout ByteReader) throws -> KeySlot {
        let length = Int(try reader.uint16())
        let start = reader.offset
        let kind = KeySlot.Kind(rawValue: try reader.uint8())
        let id = try reader.uuid()
        let kdf = try reader.uint8()
        let derivation: KeySlot.KeyDerivation
        switch (kind, kdf) {
        case (.password, KDFIdentifier.argon2id):
            let memory = try reader.uint32()
            let iterations = try reader.uint32()
            let parallelism = try reader.uint32()
            let outputLength = Int(try reader.uint8())
            let salt = try reader.short()
            guard let parameters = try? Argon2Parameters(
                memoryKiB: memory, iterations: iterations, parallelism: parallelism,
                saltLength: salt.count, outputLength: outputLength
            ), outputLength == WrappedKey.keyLength else {
                throw MedVaultError(.corrupted, reason: "keyring Argon2 parameters are invalid")
            }
            // Before any derivation runs: the MAC cannot be checked until one has.
            try parameters.checkWithinOpeningLimits()
            derivation = .argon2id(parameters, salt: salt)
        case (.recovery, KDFIdentifier.hkdfSHA256):
            let salt = try reader.short()
            guard salt.count >= 16 else { throw MedVaultError(.corrupted, reason: "keyring recovery salt is too short") }
            derivation = .hkdfSHA256(salt: salt)
        case (.platform, KDFIdentifier.storedSecret):
            let account = try reader.shortString()
            guard !account.isEmpty else { throw MedVaultError(.corrupted, reason: "keyring platform account is empty") }
            derivation = .storedSecret(account: account)
        default:
            throw MedVaultError(.corrupted, reason: "keyring slot kind is unknown")
        }
        let wrapped = try decodeWrappedKey(&reader)
        guard reader.offset - start == length else {
            throw MedVaultError(.corrupted, reason: "keyring slot length is inconsistent")
        }
        return KeySlot(id: id, kind: kind, derivation: derivation, wrapped: wrapped)
    }
}
