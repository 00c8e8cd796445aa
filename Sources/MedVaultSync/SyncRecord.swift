import Foundation
import MedVault

/// What an envelope carries once opened: which record changed, how and when, and the
/// record's full state after the change.
///
/// The fields mirror a change-log entry (`docs/changes.md`) plus the record itself, so a
/// receiving device can apply the change through the repositories' rules.
struct SyncRecord: Sendable, Equatable, Codable {
    /// The record's table (`patient`, `clinical_session`, … or an app table).
    var table: String
    /// The record's id.
    var recordID: UUID
    /// The record's version after the change.
    var version: Int64
    /// The change-log operation (`insert`, `update`, `deactivate`, …).
    var operation: String
    /// The hybrid logical clock timestamp of the change (conflict order).
    var timestamp: UInt64
    /// The device that made the change (the deterministic tiebreak).
    var deviceID: UUID
    /// The record's state after the change, encoded as JSON; `nil` for a delete.
    var state: Data?
    /// The clock of the version this change replaced, as the sealing device knew it
    /// (`nil`: the record was new to sync). A receiver holding exactly that version
    /// fast-forwards; any other version there means concurrent changes (a conflict).
    var baseTimestamp: UInt64? = nil
    /// The device of ``baseTimestamp``.
    var baseDeviceID: UUID? = nil
    /// This envelope's number in its device's sequence (1, 2, 3…; see
    /// `SyncDeviceSequences`); `nil` in envelopes sealed by a build before numbering.
    var deviceSequence: Int64? = nil
}

extension SyncRecord {
    /// This record's JSON, as `JSONEncoder` with `.sortedKeys` writes it (absent optionals
    /// left out), written by ``SyncJSONWriter``.
    func json() -> [UInt8] {
        var writer = SyncJSONWriter(capacity: 256 + (state?.count ?? 0) * 4 / 3)
        writer.object { writer in
            if let baseDeviceID { writer.key("baseDeviceID"); writer.uuid(baseDeviceID) }
            if let baseTimestamp { writer.key("baseTimestamp"); writer.integer(baseTimestamp) }
            writer.key("deviceID"); writer.uuid(deviceID)
            if let deviceSequence { writer.key("deviceSequence"); writer.integer(deviceSequence) }
            writer.key("operation"); writer.string(operation)
            writer.key("recordID"); writer.uuid(recordID)
            if let state { writer.key("state"); writer.base64(state) }
            writer.key("table"); writer.string(table)
            writer.key("timestamp"); writer.integer(timestamp)
            writer.key("version"); writer.integer(version)
        }
        return writer.bytes
    }
}
