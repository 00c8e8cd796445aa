import Foundation
import MedVaultCore
import MedVault

/// A version of a record that sync did not keep, listed until the app resolves it:
/// no change is lost silently.
///
/// Three kinds: the loser of concurrent changes of one record (last writer wins by hybrid
/// logical clock, ties broken by device id), a remote change the medical-record rules
/// refused (signed content, a diagnosis snapshot, deleting a patient), and a concurrent
/// remote change stamped too far ahead of this device's clock to be allowed to win.
public struct SyncConflict: Sendable, Hashable, Identifiable {
    /// What kind of conflict.
    public enum Kind: String, Sendable, Hashable {
        /// Concurrent changes: the other version won by clock.
        case concurrentChange = "concurrent"
        /// A remote change refused by a medical-record rule; the local version stays.
        case refused
        /// A concurrent remote change whose clock was ahead of this device's by more
        /// than ``SyncEngine/maximumClockSkew``: it did not win, the local version stays.
        /// Resolving it either way writes the kept side as a new change of this device
        /// stamped just after the clock that ran ahead, so every device converges on it
        /// (see ``SyncEngine/resolve(_:keep:)``).
        case clockAhead = "clock-ahead"
    }

    /// Which side a version came from, seen from this device.
    public enum Side: String, Sendable, Hashable {
        /// This device's version.
        case local
        /// Another device's version.
        case remote
    }

    /// The conflict's id (local to this device).
    public let id: UUID
    /// The kind.
    public let kind: Kind
    /// The record's table.
    public let table: VaultTable
    /// The record.
    public let recordID: UUID
    /// The side whose version lost and is kept here.
    public let loser: Side
    /// The losing version's clock.
    public let losingTimestamp: HybridTimestamp
    /// The device that wrote the losing version.
    public let losingDeviceID: UUID
    /// The winning (stored) version's clock.
    public let winningTimestamp: HybridTimestamp
    /// When this device detected it.
    public let detectedAt: Date
}

/// Which version ``SyncEngine/resolve(_:keep:)`` keeps.
public enum SyncConflictResolution: Sendable, Hashable {
    /// Keep this device's version.
    case keepLocal
    /// Keep the other device's version.
    case keepRemote
}
