import Foundation
import MedVault

/// Decodes an opened envelope's ``SyncRecord`` and its record state (`SyncRowState`)
/// from their JSON: with ``SyncJSONScanner`` when the bytes are in the shape the
/// encoders write, else with `JSONDecoder` — so the result, and any error, is exactly
/// `JSONDecoder`'s; the scanner only makes the common case fast.
enum SyncRecordDecoding {
    /// The record in `plaintext` (an envelope's opened bytes, padding included).
    static func record(_ plaintext: [UInt8]) throws -> SyncRecord {
        if let record = plaintext.withUnsafeBufferPointer({ fastRecord($0) }) { return record }
        return try JSONDecoder().decode(SyncRecord.self, from: Data(plaintext))
    }

    /// A record's state as ``SyncRecord/state`` carries it.
    static func rowState(_ data: Data) throws -> SyncRowState {
        if let state = data.withUnsafeBytes({ fastRowState($0.assumingMemoryBound(to: UInt8.self)) }) { return state }
        return try JSONDecoder().decode(SyncRowState.self, from: data)
    }

    // MARK: - Scanner paths

    static func fastRecord(_ bytes: UnsafeBufferPointer<UInt8>) -> SyncRecord? {
        var scanner = SyncJSONScanner(bytes)
        var table: String?, recordID: UUID?, version: Int64?, operation: String?, timestamp: UInt64?, deviceID: UUID?
        var state: Data?, baseTimestamp: UInt64?, baseDeviceID: UUID?, deviceSequence: Int64?
        var seen = KeySet()
        do throws(SyncJSONScanner.GiveUp) {
            try scanner.forEachMember { scanner, key throws(SyncJSONScanner.GiveUp) in
                // Each key once: a repeated one is left to JSONDecoder.
                guard seen.insert(key) else { throw SyncJSONScanner.GiveUp() }
                switch key {
                case "table": table = try scanner.string()
                case "recordID": recordID = try scanner.uuid()
                case "version": version = try scanner.int64()
                case "operation": operation = try scanner.string()
                case "timestamp": timestamp = try scanner.uint64()
                case "deviceID": deviceID = try scanner.uuid()
                case "state": state = scanner.consumeNull() ? nil : try scanner.base64()
                case "baseTimestamp": baseTimestamp = scanner.consumeNull() ? nil : try scanner.uint64()
                case "baseDeviceID": baseDeviceID = scanner.consumeNull() ? nil : try scanner.uuid()
                case "deviceSequence": deviceSequence = scanner.consumeNull() ? nil : try scanner.int64()
                default: throw SyncJSONScanner.GiveUp()
                }
            }
            try scanner.expectEnd()
        } catch {
            return nil
        }
        guard let table, let recordID, let version, let operation, let timestamp, let deviceID else { return nil }
        return SyncRecord(table: table, recordID: recordID, version: version, operation: operation, timestamp: timestamp,
                          deviceID: deviceID, state: state, baseTimestamp: baseTimestamp, baseDeviceID: baseDeviceID,
                          deviceSequence: deviceSequence)
    }

    static func fastRowState(_ bytes: UnsafeBufferPointer<UInt8>) -> SyncRowState? {
        var scanner = SyncJSONScanner(bytes)
        var columns: [String: SyncColumnValue]?
        do throws(SyncJSONScanner.GiveUp) {
            try scanner.forEachMember { scanner, key throws(SyncJSONScanner.GiveUp) in
                guard key == "columns", columns == nil else { throw SyncJSONScanner.GiveUp() }
                var read: [String: SyncColumnValue] = [:]
                try scanner.forEachMember { scanner, name throws(SyncJSONScanner.GiveUp) in
                    guard read.updateValue(try columnValue(&scanner), forKey: name) == nil else {
                        throw SyncJSONScanner.GiveUp()
                    }
                }
                columns = read
            }
            try scanner.expectEnd()
        } catch {
            return nil
        }
        return columns.map(SyncRowState.init(columns:))
    }

    /// `null`, or an object of exactly one of `i`, `r`, `t`, `b`.
    private static func columnValue(_ scanner: inout SyncJSONScanner) throws(SyncJSONScanner.GiveUp) -> SyncColumnValue {
        if scanner.consumeNull() { return .null }
        var value: SyncColumnValue?
        try scanner.forEachMember { scanner, key throws(SyncJSONScanner.GiveUp) in
            guard value == nil else { throw SyncJSONScanner.GiveUp() }
            switch key {
            case "i": value = .integer(try scanner.int64())
            case "r": value = .real(try scanner.double())
            case "t": value = .text(try scanner.string())
            case "b": value = .blob(try scanner.base64())
            default: throw SyncJSONScanner.GiveUp()
            }
        }
        guard let value else { throw SyncJSONScanner.GiveUp() }
        return value
    }

    /// The record's keys already read: ten known names, one bit each.
    private struct KeySet {
        private var bits: UInt16 = 0
        private static let names = ["table", "recordID", "version", "operation", "timestamp", "deviceID", "state",
                                    "baseTimestamp", "baseDeviceID", "deviceSequence"]

        /// Records `key`; `false` when it was read already. An unknown key is
        /// accepted here and refused by the caller's `switch`.
        mutating func insert(_ key: String) -> Bool {
            guard let index = Self.names.firstIndex(of: key) else { return true }
            let bit: UInt16 = 1 << index
            defer { bits |= bit }
            return bits & bit == 0
        }
    }
}
