import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A large seal run in bounded steps (`SyncSealPlan`): the outbox it leaves is the one
/// a single transaction leaves, envelope for envelope; changes made between steps are
/// sealed after; a kill at any point loses nothing and seals nothing twice.
@Suite("Sync: a large seal in steps")
struct SyncSealStepTests {
    @Test("Three records a step, finished by steps or by one unbounded call: the outbox is the single transaction's, same envelopes, order and records; the plan is gone", arguments: [false, true])
    func stepsMatchOneTransaction(finishUnbounded: Bool) async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let device = try #require(try await devices.engines[0].credentials()).deviceID
            try await Self.addRecords(to: vault, patients: 12)
            let expected = try await Self.sealedInOneTransaction(vault, device: device)
            #expect(expected.count == 12 * 2)

            #expect(try await Self.step(vault, device: device, limit: 3) == false)
            #expect(try await Self.sealingThrough(vault) > 0, "a run of more records than a step is planned")
            #expect(try await Self.outbox(vault).count == 3)
            var steps = 1
            if finishUnbounded {
                // What a pull's apply transaction does: the rest of the plan, then the rest.
                _ = try await vault.withSyncKeyChain { chain in
                    try await vault.database.write(duration: .long) { db in
                        try PendingChangeSealer.sealPending(keys: chain.current, localDevice: device, db)
                    }
                }
            } else {
                while try await !Self.step(vault, device: device, limit: 3) { steps += 1 }
                #expect(steps >= 8)
            }
            #expect(try await Self.outbox(vault) == expected)
            #expect(try await Self.sealingThrough(vault) == 0)
            #expect(try await vault.database.read { db in try SyncSealPlan.isEmpty(db) })
            #expect(try await vault.database.read { db in
                try SyncStateStore.state(db).sealedThrough == SyncRecordStore.latestSequence(db)
            })
        }
    }

    @Test("Changes made between steps: a planned record changed again is sealed in its step and again after the run, a record created meanwhile after it; both devices converge")
    func changesBetweenSteps() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let device = try #require(try await devices.engines[0].credentials()).deviceID
            let patients = try await Self.addRecords(to: vault, patients: 10)

            #expect(try await Self.step(vault, device: device, limit: 3) == false)
            // The last patient is planned, not sealed yet; a new one is not planned.
            var changed = try #require(patients.last)
            changed.phoneNumber = "699000111"
            _ = try await vault.patients.update(changed)
            let late = try await vault.patients.create(ClinicalFixtures.patient("Tardía", "Plan"))
            while try await !Self.step(vault, device: device, limit: 3) {}
            #expect(try await vault.database.read { db in
                try SyncStateStore.state(db).sealedThrough == SyncRecordStore.latestSequence(db)
            })
            // The changed patient was sealed in its step (its session, planned after it,
            // needs it first) and again by the run after: the later change is not lost.
            let envelopes = try await Self.outbox(vault).filter { $0.contains(changed.id.uuidString) }
            #expect(envelopes.count == 2)

            _ = try await devices.syncAll()
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
            #expect(try await devices.vaults[1].patients.get(changed.id).phoneNumber == "699000111")
            #expect(try await devices.vaults[1].patients.get(late.id).id == late.id)
        }
    }

    @Test("Through the engine: 2,400 records, more than a step, sealed and pushed in one sync; every record stored once on the server, the other device converges")
    func engineSealsInSteps() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let people = (0..<800).map { ClinicalFixtures.patient("P\($0)", "Lote") }
            _ = try await vault.patients.create(people)
            _ = try await vault.sessions.create(people.flatMap { patient in
                (0..<2).map { _ in
                    ClinicalSession(patientID: patient.id, date: Date(timeIntervalSince1970: 1_750_000_000), type: .video,
                                    durationMinutes: 45, notes: "notas", chiefComplaint: "motivo", treatmentPlan: "plan")
                }
            })
            let pushed = try await devices.engines[0].sync()
            #expect(pushed.uploaded == 2_400)
            #expect(try await Self.sealingThrough(vault) == 0)
            #expect(await devices.server.envelopeCount(vaultID: vault.vaultID) == 2_400)
            #expect(try await devices.engines[1].sync().downloaded == 2_400)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }

    @Test("A step with attachments ends after its chunk budget and the next goes on; the outbox is still the single transaction's")
    func chunkBudgetEndsStep() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let device = try #require(try await devices.engines[0].credentials()).deviceID
            for index in 0..<3 {
                let session = try await SyncAttachmentFixtures.session(on: vault, name: "A\(index)")
                _ = try await SyncAttachmentFixtures.attach(SyncAttachmentFixtures.content(100_000, seed: UInt64(index + 1)),
                                                            to: session, on: vault)
            }
            let expected = try await Self.sealedInOneTransaction(vault, device: device)
            let step = { @Sendable () async throws -> Bool in
                try await vault.withSyncKeyChain { chain in
                    try await vault.database.write(duration: .long) { db in
                        try PendingChangeSealer.sealStep(keys: chain.current, localDevice: device, limit: 5, chunks: 1, db).finished
                    }
                }
            }
            #expect(try await step() == false)
            let planned = { @Sendable () async throws -> Int64 in
                try await vault.database.read { db in try db.fetchOne("SELECT count(*) FROM sync_seal_plan") { $0.int64(at: 0) } ?? 0 }
            }
            let left = try await planned()
            // Five planned records a step, but the first attachment's chunks ended it.
            let first = try await Self.outbox(vault).count
            #expect(left > 0 && first < expected.count)
            while try await !step() {}
            #expect(try await Self.outbox(vault) == expected)
        }
    }

    @Test("A step given a goal the seal cursor has reached seals nothing more: what the app writes meanwhile waits for the next pass")
    func goalStopsSealing() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let device = try #require(try await devices.engines[0].credentials()).deviceID
            try await Self.addRecords(to: vault, patients: 2)
            while try await !Self.step(vault, device: device, limit: 3) {}
            let goal = try await vault.database.read { db in try SyncRecordStore.latestSequence(db) }
            let sealed = try await Self.outbox(vault)
            _ = try await vault.patients.create(ClinicalFixtures.patient("Después", "Plan"))
            let finished = try await vault.withSyncKeyChain { chain in
                try await vault.database.write(duration: .long) { db in
                    try PendingChangeSealer.sealStep(keys: chain.current, localDevice: device, limit: 3, goal: goal, db)
                }
            }
            #expect(finished.finished && finished.sealed == 0)
            #expect(try await Self.outbox(vault) == sealed)
            // Without a goal, the next step seals it.
            #expect(try await Self.step(vault, device: device, limit: 3))
            #expect(try await Self.outbox(vault).count == sealed.count + 1)
        }
    }

    @Test("Plan rows left without their run's end are adopted and drained, not refused forever; a second plan over one in progress is conflict")
    func orphanPlanAdopted() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let device = try #require(try await devices.engines[0].credentials()).deviceID
            try await Self.addRecords(to: vault, patients: 3)
            let expected = try await Self.sealedInOneTransaction(vault, device: device)
            // A plan whose end was never recorded (no code path writes that).
            try await vault.database.write { db in
                let start = try SyncStateStore.state(db).sealedThrough
                try SyncSealPlan.make(after: start, through: try SyncRecordStore.latestSequence(db), db)
                #expect {
                    try SyncSealPlan.make(after: start, through: try SyncRecordStore.latestSequence(db), db)
                } throws: { ($0 as? MedVaultError)?.code == .conflict }
            }
            #expect(try await Self.sealingThrough(vault) == 0)
            while try await !Self.step(vault, device: device, limit: 2) {}
            #expect(try await Self.outbox(vault) == expected)
            #expect(try await vault.database.read { db in try SyncSealPlan.isEmpty(db) })
        }
    }

    @Test("The app prunes the change log in the middle of a planned run: the plan still drains, the run ends, only the surviving entry's record is sealed after")
    func prunedDuringRun() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            let device = try #require(try await devices.engines[0].credentials()).deviceID
            try await Self.addRecords(to: vault, patients: 10)
            #expect(try await Self.step(vault, device: device, limit: 3) == false)
            let sealedFirst = try await Self.outbox(vault).count
            // Against the documented rule (prune only what every reader consumed).
            _ = try await vault.pruneChanges(through: try await vault.latestChangeCursor())
            var steps = 0
            while try await !Self.step(vault, device: device, limit: 3) {
                steps += 1
                try #require(steps < 20, "the plan does not drain")
            }
            #expect(try await Self.sealingThrough(vault) == 0)
            #expect(try await vault.database.read { db in try SyncSealPlan.isEmpty(db) })
            // The newest entry survives pruning: its record is the only one sealed after.
            #expect(try await Self.outbox(vault).count == sealedFirst + 1)
        }
    }

    @Test("SIGKILL between and inside steps, until the run finishes: the outbox is the single transaction's, envelope for envelope, none twice")
    func killedWhileSealing() async throws {
        try await withTemporaryDirectory { dir in
            // The probe's password and options.
            let password = try Password("probe")
            let options = Vault.Options(kdf: .fastForTestsOnly,
                                        passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))
            let vault = try await Vault.create(at: dir.file("device-0"), password: password, options: options).vault
            let engine = SyncEngine(vault: vault, transport: InMemorySyncTransport())
            try await engine.register()
            let device = try #require(try await engine.credentials()).deviceID
            try await Self.addRecords(to: vault, patients: 40)
            let expected = try await Self.sealedInOneTransaction(vault, device: device)
            await vault.lock()

            var random = SystemRandomNumberGenerator()
            var finished = false
            var kills = 0
            for round in 0..<60 where !finished {
                let child = try ProbeChild(["seal-steps", dir.file("device-0").path], outputURL: dir.file("out-\(round)"))
                // The probe waits after each committed step until told to go on, so it never
                // runs ahead of the kill, however slowly this process is scheduled: every
                // round but the last is killed. After one or two committed steps (each round
                // makes progress), the kill lands between two steps or inside the next.
                let steps = Int.random(in: 1...2, using: &random)
                var printed = true
                for step in 1...steps where printed {
                    printed = try await child.waitForLines(step)
                    if step < steps, printed, child.lines.last == "step" { try child.send("go") }
                }
                if printed, child.lines.last == "step", Bool.random(using: &random) {
                    try child.send("go")
                    // Not a wait for anything: a random delay places the kill inside the next
                    // step (or, on a slow moment, after it, where the probe waits again).
                    try await Task.sleep(for: .microseconds(Int.random(in: 0...3_000, using: &random)))
                }
                kill(child.process.processIdentifier, SIGKILL)
                child.process.waitUntilExit()
                finished = child.lines.contains("finished")
                // Killed, or done: a probe that failed (an error, an exit status) fails the test.
                let killed = child.process.terminationReason == .uncaughtSignal
                    && child.process.terminationStatus == SIGKILL
                let done = child.process.terminationReason == .exit && child.process.terminationStatus == 0 && finished
                #expect(killed || done, "round \(round): the probe failed: \(child.lines)")
                #expect(printed || finished, "round \(round): the probe never committed a step")
                if !finished { kills += 1 }
            }
            print("seal-steps killed \(kills) times before it finished")
            #expect(finished, "the run never finished")
            #expect(kills > 0)
            let reopened = try await Vault.open(at: dir.file("device-0"), password: password, options: options)
            defer { Task { await reopened.lock() } }
            #expect(try await Self.outbox(reopened) == expected)
            #expect(try await Self.sealingThrough(reopened) == 0)
        }
    }

    // MARK: - Helpers

    /// `patients` patients with a session each, then the first third changed again (a
    /// record whose first and last change are far apart).
    @discardableResult
    static func addRecords(to vault: Vault, patients count: Int) async throws -> [Patient] {
        var patients: [Patient] = []
        for index in 0..<count {
            let patient = try await vault.patients.create(ClinicalFixtures.patient("P\(index)", "Plan"))
            patients.append(patient)
            _ = try await vault.sessions.create(ClinicalSession(
                patientID: patient.id, date: Date(timeIntervalSince1970: 1_750_000_000), type: .video,
                durationMinutes: 45, notes: "notas", chiefComplaint: "motivo", treatmentPlan: "plan"))
        }
        for var patient in patients.prefix(count / 3) {
            patient.phoneNumber = "600000000"
            patients[patients.firstIndex { $0.id == patient.id }!] = try await vault.patients.update(patient)
        }
        return patients
    }

    /// One step of at most `limit` records in its own write transaction; whether nothing waited.
    static func step(_ vault: Vault, device: UUID, limit: Int) async throws -> Bool {
        try await vault.withSyncKeyChain { chain in
            try await vault.database.write(duration: .long) { db in
                try PendingChangeSealer.sealStep(keys: chain.current, localDevice: device, limit: limit, db).finished
            }
        }
    }

    /// The outbox, envelope by envelope: id, record key, and the record it opens to.
    static func outbox(_ vault: Vault) async throws -> [String] {
        try await vault.withSyncKeyChain { chain in
            try await vault.database.read { db in try describe(SyncStateStore.outbox(limit: 100_000, db), chain) }
        }
    }

    static func describe(_ rows: [SyncStateStore.SyncEnvelopeRow], _ chain: SyncKeyChain) throws -> [String] {
        let sealer = EnvelopeSealer(keys: chain.current)
        return try rows.map { row in
            let record = try sealer.open(try SyncEnvelope(id: row.id, recordKey: row.recordKey,
                                                          ciphertext: row.ciphertext, epoch: row.epoch))
            return "\(row.id) \(row.recordKey.base64EncodedString()) \(record)"
        }
    }

    /// What sealing everything in one transaction leaves in the outbox; rolled back.
    static func sealedInOneTransaction(_ vault: Vault, device: UUID) async throws -> [String] {
        struct RolledBack: Error { let outbox: [String] }
        do {
            try await vault.withSyncKeyChain { chain in
                try await vault.database.write(duration: .long) { db in
                    try PendingChangeSealer.sealPending(keys: chain.current, localDevice: device, db)
                    throw RolledBack(outbox: try describe(SyncStateStore.outbox(limit: 100_000, db), chain))
                }
            }
        } catch let rolledBack as RolledBack {
            #expect(try await outbox(vault).isEmpty, "the single transaction was rolled back")
            return rolledBack.outbox
        }
        Issue.record("the single transaction was not rolled back")
        return []
    }

    static func sealingThrough(_ vault: Vault) async throws -> Int64 {
        try await vault.database.read { db in try SyncStateStore.sealingThrough(db) }
    }
}
