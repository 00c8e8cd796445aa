import MedVaultCore

/// The text form shared by the secrets a person writes down (``RecoveryKey``,
/// ``SyncSecret``): the secret's bytes and the first bytes of SHA-256(label ‖ secret)
/// as Crockford base32, most significant bit first, in groups joined by hyphens.
///
/// Reading is forgiving — case, spaces, tabs, newlines and hyphens do not matter, `I`/`L`
/// read as `1` and `O` as `0`, `U` is refused — and every intermediate (symbols, decoded
/// bytes) lives in ``SecureBytes`` wiped before returning. A mistyped character is caught
/// by the checksum before any key derivation runs.
struct CheckedBase32: Sendable {
    /// Number of secret bytes.
    let secretLength: Int
    /// Number of checksum bytes.
    let checksumLength: Int
    /// Number of groups in the text form.
    let groupCount: Int
    /// Symbols per group.
    let groupLength: Int
    /// Hashed before the secret for the checksum.
    let checksumLabel: [UInt8]
    /// The field named by parse errors.
    let field: String

    init(secretLength: Int, checksumLength: Int, groupCount: Int, groupLength: Int, checksumLabel: String, field: String) {
        // The bits of secret and checksum fill the symbols exactly. Unreachable for any
        // caller: the only two (RecoveryKey, SyncSecret) pass constants, 35 bytes for 56
        // symbols and 20 for 32, created once as static lets and exercised by their tests.
        precondition((secretLength + checksumLength) * 8 == groupCount * groupLength * 5)
        self.secretLength = secretLength
        self.checksumLength = checksumLength
        self.groupCount = groupCount
        self.groupLength = groupLength
        self.checksumLabel = Array(checksumLabel.utf8)
        self.field = field
    }

    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    private var symbolCount: Int { groupCount * groupLength }

    /// The secret `text` spells, after its checksum was checked.
    ///
    /// - Throws: `invalidArgument` on ``field``: "invalid character", "wrong length" or
    ///   "checksum mismatch".
    func parse<Bytes: Collection>(_ text: Bytes) throws -> SecureBytes where Bytes.Element == UInt8 {
        var count = 0
        for byte in text where !Self.isSeparator(byte) {
            guard Self.value(of: byte) != nil else {
                throw MedVaultError(.invalidArgument, field: field, reason: "invalid character")
            }
            count += 1
        }
        guard count == symbolCount else {
            throw MedVaultError(.invalidArgument, field: field, reason: "wrong length")
        }
        let symbols = SecureBytes(count: symbolCount) { buffer in
            var index = 0
            for byte in text where !Self.isSeparator(byte) {
                buffer[index] = Self.value(of: byte) ?? 0
                index += 1
            }
        }
        defer { symbols.wipe() }
        let decoded = try symbols.withUnsafeBytes { source in
            SecureBytes(count: secretLength + checksumLength) { target in Self.unpack(source, into: target) }
        }
        defer { decoded.wipe() }
        let matches = try decoded.withUnsafeBytes { bytes in
            let secret = UnsafeRawBufferPointer(rebasing: bytes[0..<secretLength])
            return Array(bytes[secretLength...]) == checksum(of: secret)
        }
        guard matches else {
            throw MedVaultError(.invalidArgument, field: field, reason: "checksum mismatch")
        }
        return try decoded.withUnsafeBytes { bytes in
            SecureBytes(count: secretLength) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<secretLength]))
            }
        }
    }

    /// The text form of `secret`; an empty string when `secret` was wiped. Only the
    /// returned `String` holds the text, and it cannot be wiped.
    func format(_ secret: SecureBytes) -> String {
        let payloadLength = secretLength + checksumLength
        let symbolCount = symbolCount
        guard let symbols = try? secret.withUnsafeBytes({ key -> SecureBytes in
            let payload = SecureBytes(count: payloadLength) { buffer in
                buffer.copyMemory(from: key)
                for (offset, byte) in checksum(of: key).enumerated() { buffer[key.count + offset] = byte }
            }
            defer { payload.wipe() }
            return try payload.withUnsafeBytes { source in
                SecureBytes(count: symbolCount) { target in Self.pack(source, into: target) }
            }
        }) else { return "" }
        defer { symbols.wipe() }
        let textLength = symbolCount + groupCount - 1
        return (try? symbols.withUnsafeBytes { source in
            String(unsafeUninitializedCapacity: textLength) { text in
                var position = 0
                for index in 0..<symbolCount {
                    if index > 0, index % groupLength == 0 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = Self.alphabet[Int(source[index])]
                    position += 1
                }
                return position
            }
        }) ?? ""
    }

    /// The first ``checksumLength`` bytes of SHA-256(label ‖ secret), hashed by
    /// ``SecureSHA256`` so that no hash context keeps the secret after it is released.
    private func checksum(of secret: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: SecureSHA256.digestLength)
        checksumLabel.withUnsafeBytes { label in
            digest.withUnsafeMutableBytes { SecureSHA256.hash([label, secret], into: $0) }
        }
        return Array(digest.prefix(checksumLength))
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "\t")
            || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    /// Crockford decoding: case-insensitive, I/L → 1, O → 0, U refused.
    private static func value(of byte: UInt8) -> UInt8? {
        var upper = byte
        if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(upper) { upper -= 32 }
        switch upper {
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        case UInt8(ascii: "O"): return 0
        default:
            guard let index = alphabet.firstIndex(of: upper) else { return nil }
            return UInt8(index)
        }
    }

    /// Big-endian bits, 5 per symbol.
    private static func pack(_ bytes: UnsafeRawBufferPointer, into symbols: UnsafeMutableRawBufferPointer) {
        var buffer: UInt32 = 0
        var bits = 0
        var position = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5, position < symbols.count {
                symbols[position] = UInt8((buffer >> UInt32(bits - 5)) & 0x1F)
                position += 1
                bits -= 5
            }
        }
        buffer = 0
    }

    private static func unpack(_ symbols: UnsafeRawBufferPointer, into bytes: UnsafeMutableRawBufferPointer) {
        var buffer: UInt32 = 0
        var bits = 0
        var position = 0
        for symbol in symbols {
            buffer = (buffer << 5) | UInt32(symbol)
            bits += 5
            if bits >= 8, position < bytes.count {
                bytes[position] = UInt8((buffer >> UInt32(bits - 8)) & 0xFF)
                position += 1
                bits -= 8
            }
        }
        buffer = 0
    }
}
