import CSQLCipher
import Foundation
import MedVaultCore
import MedVaultKeys

/// The hash chain of the audit trail: what each entry's MAC covers.
///
/// ```
/// mac_0 = HMAC(auditKey, "MedVault audit chain v1")
/// mac_n = HMAC(auditKey, mac_{n-1} ‖ bytes(seq, time, device, actor, action, entity_table, entity_id)
///                        [‖ bytes(origin), only when origin is not NULL])
/// ```
///
/// `bytes` encodes each column as stored, with its type: `NULL` as `0x00`; an integer as
/// `0x01` and 8 bytes big-endian; text as `0x02`, its UTF-8 length (4 bytes big-endian)
/// and its bytes; a blob as `0x03`, its length and its bytes; a real as `0x04` and its
/// IEEE bits. So every column, including a change of type, is covered and no two
/// entries encode alike. The sequence is inside: an entry moved to another position
/// no longer verifies.
///
/// `origin` (migration "audit origin": the device a synced change came from) is appended
/// only when set: every entry written before the column existed keeps its MAC, and since
/// each column's encoding says where it ends, an entry with an origin never encodes like
/// one without. Clearing or setting it afterwards breaks the MAC.
enum AuditChain {
    static let genesisLabel = Array("MedVault audit chain v1".utf8)

    /// `mac_0`.
    static func genesis(_ key: AuditKey) throws -> [UInt8] {
        try key.mac([genesisLabel])
    }

    /// The stored columns of an entry, in canonical order.
    struct Columns {
        var seq: Int64
        var time: VaultValue
        var device: VaultValue
        var actor: VaultValue
        var action: VaultValue
        var table: VaultValue
        var entityID: VaultValue
        /// `NULL` for a change made on this device and for events.
        var origin: VaultValue = .null
    }

    /// The MAC of `entry` following `previous`.
    static func mac(_ key: AuditKey, previous: [UInt8], _ entry: Columns) throws -> [UInt8] {
        var message = Message()
        return [UInt8](try message.mac(key, previous: previous, entry))
    }

    /// Appends the canonical bytes of `entry` to `out`.
    static func append(_ entry: Columns, to out: inout [UInt8]) {
        append(.integer(entry.seq), to: &out)
        append(entry.time, to: &out)
        append(entry.device, to: &out)
        append(entry.actor, to: &out)
        append(entry.action, to: &out)
        append(entry.table, to: &out)
        append(entry.entityID, to: &out)
        if entry.origin != .null { append(entry.origin, to: &out) }
    }

    /// The message of one MAC, `mac_{n-1} ‖ bytes(entry)`, in a buffer reused from entry
    /// to entry: the writer and the verifier MAC an entry without allocating anything but
    /// the MAC itself (one `Data`, which is also the value bound to the `mac` column).
    struct Message {
        private var bytes: [UInt8] = []

        init() {
            // The previous MAC (32) and an entry with an actor (87); text columns may grow it.
            bytes.reserveCapacity(128)
        }

        /// The MAC of `entry` following `previous`.
        mutating func mac(_ key: AuditKey, previous: some ContiguousBytes, _ entry: Columns) throws -> Data {
            bytes.removeAll(keepingCapacity: true)
            previous.withUnsafeBytes { bytes.append(contentsOf: $0) }
            AuditChain.append(entry, to: &bytes)
            var output = Data(count: AuditKey.macLength)
            try bytes.withUnsafeBytes { message in
                try output.withUnsafeMutableBytes { try key.mac(message, into: $0) }
            }
            return output
        }
    }

    private static func append(_ value: VaultValue, to out: inout [UInt8]) {
        switch value {
        case .null:
            out.append(0)
        case .integer(let integer):
            out.append(1)
            appendBigEndian(UInt64(bitPattern: integer), to: &out)
        case .text(let text):
            out.append(2)
            appendLength(text.utf8.count, to: &out)
            out.append(contentsOf: text.utf8)
        case .blob(let data):
            out.append(3)
            appendLength(data.count, to: &out)
            // Through a buffer: copied at once, not byte by byte through Data's iterator.
            data.withUnsafeBytes { out.append(contentsOf: $0) }
        case .real(let real):
            out.append(4)
            appendBigEndian(real.bitPattern, to: &out)
        }
    }

    private static func appendBigEndian(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }

    private static func appendLength(_ count: Int, to out: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: count).bigEndian) { out.append(contentsOf: $0) }
    }

    /// Column `index` of `row` as stored, with its SQLite type.
    static func storedValue(_ row: VaultRow, _ index: Int32) -> VaultValue {
        switch medvault_sqlite3_column_type(row.statement, index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(row.int64(at: index))
        case SQLITE_FLOAT: return .real(row.double(at: index))
        case SQLITE_TEXT: return .text(row.text(at: index))
        default: return .blob(row.blob(at: index))
        }
    }

    /// Compares two MACs in time independent of where they differ.
    static func equal(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
