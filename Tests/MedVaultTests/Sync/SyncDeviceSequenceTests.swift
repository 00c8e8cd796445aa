import Foundation
import MedVaultCore
@testable import MedVaultSync
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
    }
}
