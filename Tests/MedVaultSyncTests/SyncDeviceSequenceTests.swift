import Foundation
import MedVaultCore
@testable import MedVault
@testable import MedVaultSync
import MedVaultTestSupport
import Testing

/// The numbers a receiver keeps of each sending device (docs/sync.md, "Sequence numbers").
@Suite("Sync: device sequence numbers, gaps and replays")
struct SyncDeviceSequenceTests {
    typealias State = SyncDeviceSequences.State

    @Test("In order: each number is fresh; a skipped one is a gap; it fills when it arrives late; a number received again is a replay")
    func arrivals() {
        var state = State()
        #expect([1, 2, 3].map { state.receive($0) } == [.fresh, .fresh, .fresh])
        #expect(state.receive(7) == .fresh)
        #expect(state.missing == [4...6])
        #expect(state.receive(5) == .late)
        #expect(state.missing == [4...4, 6...6])
        #expect(state.receive(4) == .late)
        #expect(state.receive(6) == .late)
        #expect(state.missing.isEmpty && state.highest == 7)
        for number: Int64 in [1, 5, 7, 0, -3] { #expect(state.receive(number) == .replay, "\(number)") }
        #expect(state.highest == 7)
    }

    @Test("This device's own former id after a restore is not checked")
    func untracked() {
        var state = State(highest: 0, missing: [], tracked: false)
        #expect(state.receive(5) == .untracked)
        #expect(state.receive(5) == .untracked)
        #expect(state.highest == 0 && state.missing.isEmpty)
    }

    @Test("Stored runs round-trip; malformed text is dropped, never trusted")
    func storedRuns() {
        let state = State(highest: 40, missing: [2...2, 5...9, 30...39])
        #expect(state.encodedMissing == "2-2,5-9,30-39")
        #expect(State.decodeMissing(state.encodedMissing) == state.missing)
        #expect(State.decodeMissing("") == [])
        #expect(State.decodeMissing("x,3-1,0-2,-4-5,7-8,9") == [7...8])
    }

    @Test("A sender that skips a number every time keeps at most the cap of runs, the lowest forgotten first")
    func capped() {
        var state = State()
        let cap = SyncDeviceSequences.maximumMissingRuns
        for index in 1...(cap + 5) { _ = state.receive(Int64(index * 2)) }
        #expect(state.missing.count == cap)
        #expect(state.missing.first == 11...11)
        #expect(state.receive(1) == .replay, "a forgotten run counts as received")
        // Splitting runs (numbers filling the middle of a gap) keeps the cap too.
        var split = State()
        _ = split.receive(1_000_000)
        for number in stride(from: Int64(2), to: Int64(2 * (cap + 10)), by: 2) { _ = split.receive(number) }
        #expect(split.missing.count == cap)
    }

    @Test("A vault that applied envelopes before it kept numbers takes a device's first number as its start; a vault numbering from its first pull reports the gap")
    func upgradeBaseline() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let a = try #require(try await devices.engines[0].credentials()).deviceID
            for upgraded in [true, false] {
                _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
                try await devices.syncAll()
                // What B looks like after an upgrade from a build without numbers: nothing
                // kept of A's numbers, and a cursor that had moved when it upgraded.
                try await devices.vaults[1].database.write { db in
                    try db.execute("DELETE FROM sync_device_sequence WHERE device = ?", [a.vaultValue])
                    try db.execute("UPDATE sync_state SET numbered_from = ?", [.integer(upgraded ? 1 : 0)])
                }
                _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Luis", "Gil"))
                let results = try await devices.syncAll()
                let missing = try await devices.engines[1].missingEnvelopes()
                if upgraded {
                    #expect(missing.isEmpty, "\(missing)")
                    #expect(results.allSatisfy { $0.errors.isEmpty })
                } else {
                    #expect(missing.count == 1 && missing.first?.deviceID == a, "\(missing)")
                    #expect(missing.first?.sequences.lowerBound == 1)
                }
            }
        }
    }
}
