import Foundation
import MedVaultCore
import MedVaultJSONShape

/// A strict reader of the small JSON subset ``SyncRecord`` and `SyncRowState` are
/// encoded in, for the apply path: Foundation's `JSONDecoder` cost more than half of a
/// clone's CPU time on Linux (docs/benchmarks-method.md, "Y").
///
/// It reads exactly RFC 8259 strings (every escape, surrogate pairs, valid UTF-8 only),
/// integers without fraction or exponent, numbers as `Double` through Swift's correctly
/// rounded parser, `null`, objects and nothing else. Anything it does not fully
/// understand — an unknown key, a repeated key, an array, a number out of range, a
/// malformed byte — makes it give up (`nil` from the callers), and the caller decodes
/// the same bytes with `JSONDecoder` instead: the wire format and every error stay
/// those of `JSONDecoder`; only well-formed input in the expected shape is read here.
///
/// Not `Sendable`: a value on the stack of one decode, over bytes it does not own.
struct SyncJSONScanner {
    /// A reason to give up and fall back to `JSONDecoder`.
    struct GiveUp: Error {}

    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: - Structure

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Fails unless only whitespace is left (an envelope's padding is spaces).
    mutating func expectEnd() throws(GiveUp) {
        skipWhitespace()
        guard position == bytes.count else { throw GiveUp() }
    }

    mutating func expect(_ byte: UInt8) throws(GiveUp) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { throw GiveUp() }
        position += 1
    }

    /// Reads `null` when it comes next.
    mutating func consumeNull() -> Bool {
        skipWhitespace()
        guard position + 4 <= bytes.count, bytes[position] == UInt8(ascii: "n"), bytes[position + 1] == UInt8(ascii: "u"),
              bytes[position + 2] == UInt8(ascii: "l"), bytes[position + 3] == UInt8(ascii: "l") else { return false }
        position += 4
        return true
    }

    /// Calls `body` with each key of an object, positioned before its value; `body`
    /// must read the value, and give up on a key it already read (`JSONDecoder`
    /// decides repeated keys).
    mutating func forEachMember(_ body: (inout SyncJSONScanner, String) throws(GiveUp) -> Void) throws(GiveUp) {
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
            skipWhitespace()
            guard position < bytes.count else { throw GiveUp() }
            let next = bytes[position]
            position += 1
            if next == UInt8(ascii: "}") { return }
            guard next == UInt8(ascii: ",") else { throw GiveUp() }
        }
    }

    // MARK: - Values

    /// A JSON string.
    mutating func string() throws(GiveUp) -> String {
        try expect(UInt8(ascii: "\""))
        let start = position
        // Fast path: no escape before the closing quote.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = try Self.utf8(UnsafeBufferPointer(rebasing: bytes[start..<position]))
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw GiveUp() }
            position += 1
        }
        var buffer = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try buffer.withUnsafeBufferPointer { buffer throws(GiveUp) in try Self.utf8(buffer) }
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw GiveUp() }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        // A high surrogate must be followed by an escaped low one.
                        guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"),
                              bytes[position + 1] == UInt8(ascii: "u") else { throw GiveUp() }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw GiveUp() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw GiveUp() }
                    buffer.append(contentsOf: unicode.utf8)
                default:
                    throw GiveUp()
                }
            default:
                guard byte >= 0x20 else { throw GiveUp() }
                buffer.append(byte)
            }
        }
        throw GiveUp()
    }

    private mutating func hex4() throws(GiveUp) -> UInt32 {
        guard position + 4 <= bytes.count else { throw GiveUp() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            position += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw GiveUp()
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private static func utf8(_ bytes: UnsafeBufferPointer<UInt8>) throws(GiveUp) -> String {
        guard let text = strictUTF8(bytes) else { throw GiveUp() }
        return text
    }

    /// An integer: an optional minus and digits, no fraction, no exponent, in range.
    mutating func int64() throws(GiveUp) -> Int64 {
        let (negative, magnitude) = try integer()
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw GiveUp() }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw GiveUp() }
        return Int64(magnitude)
    }

    /// A non-negative integer, no fraction, no exponent, in range.
    mutating func uint64() throws(GiveUp) -> UInt64 {
        let (negative, magnitude) = try integer()
        guard !negative || magnitude == 0 else { throw GiveUp() }
        return magnitude
    }

    private mutating func integer() throws(GiveUp) -> (negative: Bool, magnitude: UInt64) {
        skipWhitespace()
        var negative = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        let start = position
        var magnitude: UInt64 = 0
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw GiveUp() }
            magnitude = sum
            position += 1
        }
        let digits = position - start
        // No digits, a leading zero, or a fraction or exponent: not an integer here.
        guard digits > 0, !(digits > 1 && bytes[start] == UInt8(ascii: "0")) else { throw GiveUp() }
        if position < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[position]) {
            throw GiveUp()
        }
        return (negative, magnitude)
    }

    /// A JSON number as a `Double` (correctly rounded by Swift's parser).
    mutating func double() throws(GiveUp) -> Double {
        skipWhitespace()
        let start = position
        func digits(_ scanner: inout SyncJSONScanner) -> Int {
            let first = scanner.position
            while scanner.position < scanner.bytes.count,
                  (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(scanner.bytes[scanner.position]) {
                scanner.position += 1
            }
            return scanner.position - first
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits(&self)
        guard integerDigits > 0, !(integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0")) else { throw GiveUp() }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw GiveUp() }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits(&self) > 0 else { throw GiveUp() }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw GiveUp() }
        return value
    }

    /// A UUID in its string form (`UUID(uuidString:)`'s: 8-4-4-4-12 hex digits of
    /// either case), read in place; any other string goes through `UUID(uuidString:)`.
    mutating func uuid() throws(GiveUp) -> UUID {
        skipWhitespace()
        let start = position + 1
        if start + 37 <= bytes.count, bytes[position] == UInt8(ascii: "\""), bytes[start + 36] == UInt8(ascii: "\"") {
            var raw = [UInt8](repeating: 0, count: 16)
            var index = start
            var parsed = true
            for byteIndex in 0..<16 {
                if byteIndex == 4 || byteIndex == 6 || byteIndex == 8 || byteIndex == 10 {
                    guard bytes[index] == UInt8(ascii: "-") else { parsed = false; break }
                    index += 1
                }
                guard let high = Self.hexValue(bytes[index]), let low = Self.hexValue(bytes[index + 1]) else {
                    parsed = false
                    break
                }
                raw[byteIndex] = high << 4 | low
                index += 2
            }
            if parsed, index == start + 36 {
                position = start + 37
                return raw.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            }
        }
        guard let uuid = UUID(uuidString: try string()) else { throw GiveUp() }
        return uuid
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Bytes in standard base64 (`JSONDecoder`'s default data strategy).
    mutating func base64() throws(GiveUp) -> Data {
        guard let data = Data(base64Encoded: try string()) else { throw GiveUp() }
        return data
    }
}
