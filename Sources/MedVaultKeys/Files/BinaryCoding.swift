import Foundation
import MedVaultCore
import MedVaultJSONShape

/// Appends big-endian integers and length-prefixed fields for the keyring format.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func append(_ value: UInt8) { bytes.append(value) }

    mutating func append(_ value: UInt16) {
        bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    mutating func append(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    mutating func append(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
    }

    mutating func append(raw: [UInt8]) { bytes += raw }

    mutating func append(_ uuid: UUID) {
        withUnsafeBytes(of: uuid.uuid) { bytes += $0 }
    }

    /// A byte string of at most 255 bytes, preceded by its length.
    mutating func append(short: [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: short.count))
        bytes += short.prefix(255)
    }
}

/// Reads what ``ByteWriter`` wrote; every failure is `MedVaultError.Code.corrupted`.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func raw(_ count: Int) throws -> [UInt8] {
        guard count >= 0, bytes.count - offset >= count else { throw Self.truncated }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func uint8() throws -> UInt8 { try raw(1)[0] }

    mutating func uint16() throws -> UInt16 {
        try raw(2).reduce(0) { ($0 << 8) | UInt16($1) }
    }

    mutating func uint32() throws -> UInt32 {
        try raw(4).reduce(0) { ($0 << 8) | UInt32($1) }
    }

    mutating func uint64() throws -> UInt64 {
        try raw(8).reduce(0) { ($0 << 8) | UInt64($1) }
    }

    mutating func uuid() throws -> UUID {
        let b = try raw(16)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    mutating func short() throws -> [UInt8] {
        try raw(Int(try uint8()))
    }

    mutating func shortString() throws -> String {
        guard let text = strictUTF8(try short()) else {
            throw MedVaultError(.corrupted, reason: "keyring text field is not UTF-8")
        }
        return text
    }

    static let truncated = MedVaultError(.corrupted, reason: "keyring is truncated")
}
