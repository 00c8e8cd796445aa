import Foundation

/// One entry of a vault's audit trail: who did what to which record, when, on which
/// device. It never carries a field value (docs/audit.md).
public struct AuditEntry: Hashable, Sendable, Codable {
    /// Position in the trail: contiguous from 1.
    public let sequence: Int64
    /// When the entry was written (wall clock, millisecond precision).
    public let time: Date
    /// The vault database that wrote it (its change-log device id); `nil` if its row is missing.
    public let deviceID: UUID?
    /// The id of the vault's professional profile when one was saved at the time, else `nil`.
    public let actor: UUID?
    /// What happened.
    public let action: AuditAction
    /// The record's table; `nil` for a vault-wide event (a backup, an unlock).
    public let table: VaultTable?
    /// The record's id (for an export: the patient's); `nil` for a vault-wide event.
    public let entityID: UUID?
    /// The device that made the change, when it arrived through sync: its change-log
    /// device id, the id sync lists it under (`SyncDevice.id`). `nil` for a change made on
    /// this device (``deviceID``) and for events. From sync epoch 1 only a change whose
    /// push was signed by that device's certified key is applied, so the name is the
    /// signer's; at epoch 0 (a vault registered before epochs) it is the author the sealed
    /// envelope claims, which any device holding the vault key could have sealed.
    public let syncedFrom: UUID?

    /// Creates an entry (the trail creates them; this is for tests).
    public init(sequence: Int64, time: Date, deviceID: UUID?, actor: UUID?, action: AuditAction,
                table: VaultTable?, entityID: UUID?, syncedFrom: UUID? = nil) {
        self.sequence = sequence
        self.time = time
        self.deviceID = deviceID
        self.actor = actor
        self.action = action
        self.table = table
        self.entityID = entityID
        self.syncedFrom = syncedFrom
    }
}
