import Foundation

/// Writes the JSON of the records sync seals, byte for byte as Foundation's `JSONEncoder`
/// with `.sortedKeys` writes it (the tests compare both on every kind of value), in a
/// fraction of its time: the first seal of a full clinic spent half its time in
/// `JSONEncoder` (docs/sync-server-benchmarks.md).
///
/// "`JSONEncoder`'s bytes" is swift-foundation's encoder, the one Linux (built and
/// tested) and Apple's newer systems ship; any other encoder's bytes decode the same.
///
/// Package API for the sync engine. The caller writes an object's keys in sorted order
/// (UTF-8 byte order, `JSONEncoder`'s); `Double` values go through `JSONEncoder` itself,
/// so their digits are its own.
package struct SyncJSONWriter {
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false

    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// `{`, then the keys and values the caller writes, then `}`.
    package mutating func object(_ body: (inout SyncJSONWriter) throws -> Void) rethrows {
        try container(UInt8(ascii: "{"), UInt8(ascii: "}"), body)
    }

    /// `[`, then the values the caller writes, then `]`.
    package mutating func array(_ body: (inout SyncJSONWriter) throws -> Void) rethrows {
        try container(UInt8(ascii: "["), UInt8(ascii: "]"), body)
    }

    private mutating func container(_ open: UInt8, _ close: UInt8,
                                    _ body: (inout SyncJSONWriter) throws -> Void) rethrows {
        separate()
        bytes.append(open)
        needsComma = false
        try body(&self)
        bytes.append(close)
        needsComma = true
    }

    /// A value already written as JSON (by `JSONEncoder`, for a part this writer does
    /// not write itself).
    package mutating func raw(_ json: Data) {
        separate()
        bytes += json
        needsComma = true
    }

    /// `"key":` inside an object; the value follows.
    package mutating func key(_ key: String) {
        string(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// `null`.
    package mutating func null() {
        separate()
        bytes += Self.nullBytes
        needsComma = true
    }

    /// An integer in decimal.
    package mutating func integer<Value: BinaryInteger>(_ value: Value) {
        separate()
        bytes += String(value).utf8
        needsComma = true
    }

    /// A `Double` as `JSONEncoder` writes it.
    package mutating func real(_ value: Double) throws {
        separate()
        bytes += try JSONEncoder().encode(value)
        needsComma = true
    }

    /// A string, escaped as `JSONEncoder` escapes it (`/` as `\/`, controls as `\uXXXX`
    /// or their short forms).
    package mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// `utf8` with the bytes JSON escapes escaped; the runs between them are copied whole
    /// (a byte-by-byte append was most of the first seal's JSON time).
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/")
            else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0..<0x20:
                bytes += Self.unicodeEscapePrefix
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            default: bytes.append(byte)  // `"`, `\` and `/` after their backslash
            }
            runStart = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }

    /// Bytes as `JSONEncoder`'s default strategy writes them: a base64 string.
    package mutating func base64(_ data: Data) {
        string(data.base64EncodedString())
    }

    /// A UUID as `JSONEncoder` writes it: its upper-case string.
    package mutating func uuid(_ value: UUID) {
        string(value.uuidString)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private static let nullBytes = Array("null".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let unicodeEscapePrefix = Array("u00".utf8)

    /// `keys` in `JSONEncoder`'s `.sortedKeys` order.
    package static func sorted(_ keys: some Sequence<String>) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

extension SyncRowState {
    /// This state's JSON, as `JSONEncoder` with `.sortedKeys` writes it:
    /// `{"columns":{…}}`.
    package func json() throws -> Data {
        var writer = SyncJSONWriter(capacity: 64 * columns.count + 16)
        try writer.object { writer in
            writer.key("columns")
            try writer.object { writer in try Self.write(columns, into: &writer) }
        }
        return Data(writer.bytes)
    }

    private static func write(_ columns: [String: SyncColumnValue], into writer: inout SyncJSONWriter) throws {
        for name in SyncJSONWriter.sorted(columns.keys) {
            writer.key(name)
            switch columns[name] ?? .null {
            case .null: writer.null()
            case .integer(let value): writer.object { $0.key("i"); $0.integer(value) }
            case .real(let value): try writer.object { $0.key("r"); try $0.real(value) }
            case .text(let value): writer.object { $0.key("t"); $0.string(value) }
            case .blob(let value): writer.object { $0.key("b"); $0.base64(value) }
            }
        }
    }
}
