import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// A device whose clock runs ahead cannot win conflicts by it (docs/sync.md, "Clocks").
@Suite("Sync: a clock far ahead does not win a conflict")
struct SyncClockSkewTests {
    static let year: TimeInterval = 365 * 86_400

    /// A second device of `a`'s vault whose clock reads `offset` seconds from now.
    static func joinB(_ a: SyncDevices, _ server: InMemorySyncTransport, in dir: TemporaryDirectory,
                      offset: TimeInterval) async throws -> Vault {
        var options = VaultFixtures.options
        options.clock = RecordClock { Date().addingTimeInterval(offset) }
        let blob = try await server.keyring(as: try #require(await a.engines[0].credentials()))
        return try await Vault.join(at: dir.file("b"), keyring: blob.keyring,
                                    syncSecret: try #require(try await a.engines[0].syncSecret()),
                                    password: try VaultFixtures.password(), options: options)
    }

    /// B edits the patient's address, then A (a later stamp by A's clock), and A syncs.
    static func concurrentEdits(_ id: UUID, a: Vault, aEngine: SyncEngine, b: Vault) async throws {
        var onB = try await b.patients.get(id)
        onB.address = "Calle de B"
        _ = try await b.patients.update(onB)
        var onA = try await a.patients.get(id)
        onA.address = "Calle de A"
        _ = try await a.patients.update(onA)
        _ = try await aEngine.sync()
    }

    @Test("A change stamped a year ahead of the receiver's clock loses a conflict there and is listed; resolving it converges every device")
    func clockAheadDoesNotWin() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            let a = try await SyncDevices.make(1, in: dir, server: server)
            defer { Task { await a.lockAll() } }
            // B's clock reads a year earlier than A's: to B, every change of A is a year ahead.
            let bVault = try await Self.joinB(a, server, in: dir, offset: -Self.year)
            defer { Task { await bVault.lock() } }
            let b = SyncEngine(vault: bVault, transport: server)
            try await b.join()

            let created = try await a.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            _ = try await a.engines[0].sync()
            _ = try await b.sync()
            try await Self.concurrentEdits(created.id, a: a.vaults[0], aEngine: a.engines[0], b: bVault)

            let result = try await b.sync()
            #expect(result.conflicts == 1)
            let listed = try await b.conflicts()
            #expect(listed.map(\.kind) == [.clockAhead])
            #expect(listed.first?.loser == .remote)
            #expect(try await bVault.patients.get(created.id).address == "Calle de B", "the change ahead did not win")

            // A keeps its own (it is A's clock); B resolves, keeping its version: it is
            // written after the change ahead and reaches A as a fast-forward.
            _ = try await a.engines[0].sync()
            #expect(try await a.vaults[0].patients.get(created.id).address == "Calle de A")
            try await b.resolve(try #require(listed.first).id, keep: .keepLocal)
            #expect(try await b.sync().conflicts == 0)
            let settled = try await a.engines[0].sync()
            #expect(settled.conflicts == 0)
            #expect(try await a.vaults[0].patients.get(created.id).address == "Calle de B")
            #expect(try await b.conflicts().isEmpty)
        }
    }

    @Test("Within the allowed skew the later change wins as before; the skew is configurable")
    func withinSkewWins() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            let a = try await SyncDevices.make(1, in: dir, server: server)
            defer { Task { await a.lockAll() } }
            let bVault = try await Self.joinB(a, server, in: dir, offset: -60)
            defer { Task { await bVault.lock() } }
            let created = try await a.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            _ = try await a.engines[0].sync()
            // A skew of one second: a minute ahead is too far; the default ten minutes is not.
            for (skew, expected) in [(Duration.seconds(1), "Calle de B"), (SyncEngine.defaultMaximumClockSkew, "Calle de A")] {
                let b = SyncEngine(vault: bVault, transport: server, maximumClockSkew: skew)
                if try await b.credentials() == nil { try await b.join() }
                _ = try await b.sync()
                try await Self.concurrentEdits(created.id, a: a.vaults[0], aEngine: a.engines[0], b: bVault)
                _ = try await b.sync()
                #expect(try await bVault.patients.get(created.id).address == expected, "\(skew)")
                // A minute ahead of a one-second skew is listed as such; within ten minutes,
                // B's own edit simply lost by clock.
                let kinds = try await b.conflicts().map(\.kind)
                #expect(kinds == [skew == .seconds(1) ? .clockAhead : .concurrentChange], "\(skew)")
                for conflict in try await b.conflicts() { try await b.resolve(conflict.id, keep: .keepLocal) }
                _ = try await b.sync()
                _ = try await a.engines[0].sync()
            }
        }
    }

    @Test("A device whose clock ran ahead, corrected, edits again from its own version ahead: still not a winner where that version was listed")
    func correctedClockDoesNotWinFromItsAheadBase() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let created = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            try await devices.syncAll()
            var onB = try await devices.vaults[1].patients.get(created.id)
            onB.address = "Calle de B"
            _ = try await devices.vaults[1].patients.update(onB)
            // A's edit, logged a year ahead.
            var onA = try await devices.vaults[0].patients.get(created.id)
            onA.address = "Calle de A"
            _ = try await devices.vaults[0].patients.update(onA)
            try await devices.vaults[0].database.write { db in
                try db.execute("UPDATE medvault_change SET hlc = hlc + ? WHERE seq = (SELECT max(seq) FROM medvault_change)",
                               [.integer(Int64(Self.year * 1_000) << 16)])
            }
            _ = try await devices.engines[0].sync()
            _ = try await devices.engines[1].sync()
            #expect(try await devices.engines[1].conflicts().map(\.kind) == [.clockAhead])
            // A edits again (its clock now right): sealed one tick after its own version ahead.
            onA = try await devices.vaults[0].patients.get(created.id)
            onA.address = "Calle de A, 2"
            _ = try await devices.vaults[0].patients.update(onA)
            _ = try await devices.engines[0].sync()
            _ = try await devices.engines[1].sync()
            #expect(try await devices.vaults[1].patients.get(created.id).address == "Calle de B")
            #expect(try await devices.engines[1].conflicts().map(\.kind) == [.clockAhead, .clockAhead])
        }
    }

    @Test("The horizon is now plus the skew, at the end of that millisecond, and saturates instead of trapping")
    func horizon() {
        let now = Date(timeIntervalSince1970: 1_000)
        #expect(SyncEngine.clockHorizon(now: now, skew: .seconds(2)) == (1_002_000 << 16) | 0xFFFF)
        #expect(SyncEngine.clockHorizon(now: Date.distantFuture.addingTimeInterval(1e15), skew: .seconds(1)) == .max)
        #expect(SyncEngine.clockHorizon(now: now, skew: .seconds(Int64.max)) == .max)
        #expect(SyncEngine.clockHorizon(now: now, skew: .seconds(Int64.max / 1_000 - 1)) == .max)
    }

    @Test("After one change stamped a year ahead reached every device, later honest concurrent edits of that record converge by clock, none listed as clockAhead")
    func aheadBaseDoesNotPoisonTheRecord() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            defer { Task { await devices.lockAll() } }
            let created = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            try await devices.syncAll()
            // A's next change of the record is logged a year ahead (its clock ran ahead).
            var onA = try await devices.vaults[0].patients.get(created.id)
            onA.address = "Calle de A"
            _ = try await devices.vaults[0].patients.update(onA)
            let year = Int64(Self.year * 1_000) << 16
            try await devices.vaults[0].database.write { db in
                try db.execute("UPDATE medvault_change SET hlc = hlc + ? WHERE seq = (SELECT max(seq) FROM medvault_change)",
                               [.integer(year)])
            }
            try await devices.syncAll()
            #expect(try await devices.vaults[2].patients.get(created.id).address == "Calle de A", "a fast-forward applies")
            // B and C, honest clocks, edit the record concurrently: both stamp one tick past A's.
            for (index, address) in [(1, "Calle de B"), (2, "Calle de C")] {
                var patient = try await devices.vaults[index].patients.get(created.id)
                patient.address = address
                _ = try await devices.vaults[index].patients.update(patient)
            }
            try await devices.syncAll(rounds: 3)
            var addresses: Set<String?> = []
            for vault in devices.vaults { addresses.insert(try await vault.patients.get(created.id).address) }
            #expect(addresses.count == 1, "the devices converge: \(addresses)")
            for engine in devices.engines {
                #expect(!(try await engine.conflicts()).contains { $0.kind == .clockAhead })
            }
        }
    }
}
