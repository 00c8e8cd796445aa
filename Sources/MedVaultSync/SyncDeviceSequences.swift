import Foundation
import MedVault
import MedVaultCore

/// The numbers each device gives the envelopes it seals (1, 2, 3…, inside the sealed
/// content, where the server can neither read nor change them), and what this device
/// received of every other device's (docs/sync.md, "Sequence numbers"): a number skipped
/// is an envelope withheld or dropped by the server (reported, see
/// ``SyncEngine/missingEnvelopes()``); a number received again is a replay (refused).
///
/// Stored in `sync_device_sequence` (migration "sync device sequences").
enum SyncDeviceSequences {
    /// At most this many separate runs of missing numbers are kept per device; past it,
    /// the lowest run is forgotten (its numbers then count as received: hidden if still
    /// withheld, refused as replays if served later). A server withholding every other
    /// envelope of a device gets there after 2,000 of them, as does a device sealing
    /// hostile numbers.
    static let maximumMissingRuns = 1_000

    /// One device's numbers as this device knows them.
    struct State: Equatable {
        /// This device: the last number sealed. Another: the highest received.
        var highest: Int64 = 0
        /// Numbers below ``highest`` not received, in ascending runs.
        var missing: [ClosedRange<Int64>] = []
        /// `false` for this device's own former id after a restore: not checked.
        var tracked = true

        /// What an envelope numbered `number` is.
        enum Arrival: Equatable {
            /// The next number, or one past a gap (now reported).
            case fresh
            /// A number of a gap: the envelope arrived late (out of order), and fills it.
            case late
            /// A number already received, or never valid: a replay, refused.
            case replay
            /// Not checked (see ``tracked``).
            case untracked
        }

        /// Records `number` as received.
        mutating func receive(_ number: Int64) -> Arrival {
            guard tracked else { return .untracked }
            if number > highest {
                if number > highest + 1 {
                    missing.append((highest + 1)...(number - 1))
                    if missing.count > SyncDeviceSequences.maximumMissingRuns { missing.removeFirst() }
                }
                highest = number
                return .fresh
            }
            guard let index = missing.firstIndex(where: { $0.contains(number) }) else { return .replay }
            let run = missing[index]
            var pieces: [ClosedRange<Int64>] = []
            if run.lowerBound < number { pieces.append(run.lowerBound...(number - 1)) }
            if number < run.upperBound { pieces.append((number + 1)...run.upperBound) }
            missing.replaceSubrange(index...index, with: pieces)
            if missing.count > SyncDeviceSequences.maximumMissingRuns { missing.removeFirst() }
            return .late
        }

        /// `missing` as stored: `first-last` runs joined by commas.
        var encodedMissing: String {
            missing.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
        }

        /// Runs read back from ``encodedMissing``; anything malformed is dropped.
        static func decodeMissing(_ text: String) -> [ClosedRange<Int64>] {
            text.split(separator: ",").compactMap { run in
                let bounds = run.split(separator: "-", omittingEmptySubsequences: false)
                guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]),
                      first >= 1, first <= last else { return nil }
                return first...last
            }
        }
    }

    // MARK: - Storage

    static func state(of device: UUID, _ db: DatabaseConnection) throws -> State {
        try storedState(of: device, db) ?? State()
    }

    /// The stored state, `nil` for a device never met.
    static func storedState(of device: UUID, _ db: DatabaseConnection) throws -> State? {
        try db.fetchOne("SELECT highest, missing, tracked FROM sync_device_sequence WHERE device = ?",
                        [device.vaultValue]) { row in
            State(highest: row.int64(at: 0), missing: State.decodeMissing(row.text(at: 1)), tracked: row.int64(at: 2) == 1)
        }
    }

    /// After this device's sync id changed (a join under a new id, a restore): its former
    /// ids' envelopes come back from the server as another device's, some numbered below
    /// what it sealed. They are no longer checked.
    static func forgetFormerSelves(current: UUID, _ db: DatabaseConnection) throws {
        try db.execute("""
            UPDATE sync_device_sequence SET tracked = 0, missing = ''
            WHERE device <> ? AND device IN (SELECT device_id FROM medvault_device)
            """, [current.vaultValue])
    }

    static func save(_ state: State, of device: UUID, _ db: DatabaseConnection) throws {
        try db.execute("""
            INSERT OR REPLACE INTO sync_device_sequence (device, highest, missing, tracked) VALUES (?, ?, ?, ?)
            """, [device.vaultValue, .integer(state.highest), .text(state.encodedMissing), .integer(state.tracked ? 1 : 0)])
    }

    /// Every other device's missing numbers, by device id.
    static func missing(_ db: DatabaseConnection) throws -> [SyncMissingEnvelopes] {
        var result: [SyncMissingEnvelopes] = []
        try db.forEachRow("SELECT device, missing FROM sync_device_sequence WHERE missing <> '' ORDER BY device") { row in
            let device = try UUID(row: row, column: 0)
            for run in State.decodeMissing(row.text(at: 1)) {
                result.append(SyncMissingEnvelopes(deviceID: device, sequences: run))
            }
            return true
        }
        return result
    }

    // MARK: - Sealing

    /// This device's next numbers, drawn within one sealing transaction.
    struct Counter {
        let device: UUID
        private(set) var state: State
        private let initial: Int64

        init(device: UUID, _ db: DatabaseConnection) throws {
            self.device = device
            state = try SyncDeviceSequences.state(of: device, db)
            initial = state.highest
        }

        /// The number the next sealed envelope carries.
        var upcoming: Int64 { state.highest + 1 }

        /// The upcoming number was sealed.
        mutating func advance() { state.highest += 1 }

        /// Saves the counter if a number was drawn (a seal with nothing to seal writes nothing).
        func save(_ db: DatabaseConnection) throws {
            guard state.highest != initial else { return }
            try SyncDeviceSequences.save(state, of: device, db)
        }
    }

    // MARK: - Receiving

    /// Checks the numbers of a page's envelopes from other devices, records them, and
    /// returns the items to apply and those refused (listed, never applied, never a
    /// conflict): replays, and envelopes sealed in the name of another device than the
    /// one the server says pushed them. Envelopes without a number (sealed by a build
    /// before numbering) pass the number check.
    static func admit(_ items: [RemoteChangeApplier.PageItem], localDevice: UUID,
                      _ db: DatabaseConnection) throws -> ([RemoteChangeApplier.PageItem], [SyncEnvelopeError]) {
        var states: [UUID: State] = [:]
        var admitted: [RemoteChangeApplier.PageItem] = []
        var refused: [SyncEnvelopeError] = []
        admitted.reserveCapacity(items.count)
        // This device applied envelopes before it kept numbers: a device met for the first
        // time starts its count here at its first number (see SyncDeviceSequenceSchema).
        var upgraded: Bool?
        for item in items {
            let device = item.record.deviceID
            // The server records which device pushed each envelope: one sealed in another
            // device's name (by a holder of the vault's keys) is refused and listed.
            if let pusher = item.pusher, pusher != device {
                refused.append(SyncEnvelopeError(
                    sequence: item.sequence, envelopeID: item.envelopeID, code: .corrupted,
                    reason: "the envelope names another device than the one that pushed it"))
                continue
            }
            guard device != localDevice, let number = item.record.deviceSequence else {
                admitted.append(item)
                continue
            }
            var state: State
            if let known = states[device] {
                state = known
            } else if let stored = try storedState(of: device, db) {
                state = stored
            } else {
                if upgraded == nil {
                    upgraded = try db.fetchOne("SELECT numbered_from FROM sync_state WHERE singleton = 1") { $0.int64(at: 0) }
                        .map { $0 > 0 } ?? false
                }
                // Only for a device whose changes this vault already holds (applied before
                // it kept numbers): a device new to it is counted from 1, every gap reported.
                var applied = false
                if upgraded == true, number > 1 {
                    applied = try db.fetchOne("SELECT 1 FROM sync_record_clock WHERE device_id = ? LIMIT 1",
                                              [device.vaultValue]) { _ in true } ?? false
                }
                state = State(highest: applied ? number - 1 : 0)
            }
            if state.receive(number) == .replay {
                refused.append(SyncEnvelopeError(
                    sequence: item.sequence, envelopeID: item.envelopeID, code: .duplicate,
                    reason: "a replayed envelope: its device's sequence number was received already"))
            } else {
                admitted.append(item)
            }
            states[device] = state
        }
        for (device, state) in states { try save(state, of: device, db) }
        return (admitted, refused)
    }
}

/// Envelopes of another device that this device has not received: numbers skipped in
/// that device's sequence (docs/sync.md, "Sequence numbers"). A server that withholds or
/// drops an envelope shows here; an envelope that arrives late leaves it.
public struct SyncMissingEnvelopes: Sendable, Hashable, CustomStringConvertible {
    /// The sync device id of the device that sealed them.
    public let deviceID: UUID
    /// Their numbers in that device's sequence.
    public let sequences: ClosedRange<Int64>

    /// Creates a value.
    public init(deviceID: UUID, sequences: ClosedRange<Int64>) {
        self.deviceID = deviceID
        self.sequences = sequences
    }

    /// The device and the numbers.
    public var description: String {
        "device \(deviceID.uuidString.lowercased()): envelopes \(sequences.lowerBound)…\(sequences.upperBound) not received"
    }
}
