import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultTestSupport
import Testing

/// The passes an automatic sync yielded, collected by the task iterating it.
final class PassLog: @unchecked Sendable {
    // Safety of @unchecked Sendable: `passes` and `ended` are only touched under `lock`.
    private let lock = NSLock()
    private var passes: [SyncPass] = []
    private var ended = false

    /// Iterates `engine.automaticSync(schedule)` in a new task, recording every pass.
    static func start(_ engine: SyncEngine, _ schedule: SyncSchedule) -> (PassLog, Task<Void, Never>) {
        let log = PassLog()
        let task = Task {
            for await pass in engine.automaticSync(schedule) { log.lock.withLock { log.passes.append(pass) } }
            log.lock.withLock { log.ended = true }
        }
        return (log, task)
    }

    var all: [SyncPass] { lock.withLock { passes } }
    var hasEnded: Bool { lock.withLock { ended } }
    var uploaded: Int {
        all.reduce(0) { total, pass in if case .synced(let result) = pass { total + result.uploaded } else { total } }
    }
}

/// The generations a timer fired with.
final class FireLog: @unchecked Sendable {
    // Safety of @unchecked Sendable: `generations` is only touched under `lock`.
    private let lock = NSLock()
    private var generations: [UInt64] = []
    func add(_ generation: UInt64) { lock.withLock { generations.append(generation) } }
    var all: [UInt64] { lock.withLock { generations } }
}

/// Waits until `condition` holds, checking every 20 ms, for at most `timeout`.
func eventually(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

@Suite("Sync: automatic passes after commits and on a schedule")
struct AutomaticSyncTests {
    static let quick = SyncSchedule(afterCommit: .milliseconds(20), interval: .milliseconds(200),
                                    initialBackoff: .milliseconds(20), maximumBackoff: .milliseconds(50))

    @Test("A commit starts a pass at once (the interval is an hour); the other device's timer brings the change over")
    func commitThenTimer() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            var writerSchedule = Self.quick
            writerSchedule.interval = .seconds(3_600)
            let (writer, writerTask) = PassLog.start(devices.engines[0], writerSchedule)
            let (reader, readerTask) = PassLog.start(devices.engines[1], Self.quick)
            #expect(try await eventually { writer.all.count == 1 && !reader.all.isEmpty }, "the first passes start at once")
            try await SyncFixtures.addRecord(to: devices.vaults[0])
            #expect(try await eventually { writer.uploaded > 0 }, "the commit started a pass")
            #expect(try await eventually { try await devices.vaults[1].patients.count() == 1 })
            #expect(try await eventually { Set(try await devices.exports()).count == 1 }, "both devices hold the same records")
            #expect(!writer.all.contains { if case .synced = $0 { false } else { true } })
            writerTask.cancel()
            readerTask.cancel()
            await devices.lockAll()
        }
    }

    @Test("Transient failures back off (doubling up to the maximum) and the loop recovers")
    func backoff() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            await devices.server.failNextCalls(3)
            let (log, task) = PassLog.start(devices.engines[0], Self.quick)
            // `#require`, not `#expect`: with fewer than four passes the checks below
            // would index past the end and crash the whole test process.
            try #require(try await eventually { log.all.count >= 4 }, "fewer than four passes: \(log.all)")
            let first = Array(log.all.prefix(4))
            var waits: [Duration] = []
            for pass in first.prefix(3) {
                guard case .failed(let error, let wait) = pass else { Issue.record("expected a failure: \(pass)"); continue }
                #expect(error.code == .offline)
                waits.append(wait)
            }
            #expect(waits == [.milliseconds(20), .milliseconds(40), .milliseconds(50)])
            guard case .synced = first[3] else { Issue.record("the fourth pass did not sync: \(first[3])"); return }
            task.cancel()
            await devices.lockAll()
        }
    }

    @Test("A commit during a backoff waits for it: no pass before the wait ends (an hour), then syncNow() pushes the change")
    func commitsWaitForTheBackoff() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            await devices.server.failNextCalls(1)
            var schedule = Self.quick
            // An hour: on however busy a machine, no pass may come from the timer here.
            schedule.initialBackoff = .seconds(3_600)
            schedule.maximumBackoff = .seconds(3_600)
            let (log, task) = PassLog.start(devices.engines[0], schedule)
            #expect(try await eventually { log.all.count == 1 })
            try await SyncFixtures.addRecord(to: devices.vaults[0])
            // The commit's wake reaches the loop within the afterCommit delay (20 ms); a
            // generous look later still finds no second pass.
            try await Task.sleep(for: .milliseconds(300))
            #expect(log.all.count == 1, "the commit did not cut the backoff short")
            devices.engines[0].syncNow()
            #expect(try await eventually { log.uploaded > 0 })
            task.cancel()
            await devices.lockAll()
        }
    }

    @Test("The backoff timer remembers that it fired, so a commit signalled after it cannot hide it; its firing is taken once, and a replaced timer's wake is stale")
    func timerRemembersFiring() async throws {
        // The loop's wake stream keeps only the newest wake: a commit signalled right after
        // the timer fired replaces the timer's wake, and the loop, backing off, used to
        // wait for a timer that had already fired (the loop stalled for good).
        let timer = TimerSlot()
        let fires = FireLog()
        timer.start(after: .milliseconds(10)) { fires.add($0) }
        #expect(!timer.hasFired)
        #expect(!timer.takeFiring(nil), "not fired yet: nothing to take")
        #expect(try await eventually { timer.hasFired })
        let generation = try #require(fires.all.first)
        #expect(fires.all.count == 1)
        #expect(!timer.takeFiring(generation &+ 1), "another generation's wake is stale")
        #expect(timer.takeFiring(nil), "a commit during the backoff takes the firing")
        #expect(!timer.takeFiring(generation), "the timer's own late wake is then stale")
        timer.start(after: .seconds(30)) { fires.add($0) }
        #expect(!timer.hasFired, "a new timer starts unfired")
        timer.cancel()
        try await Task.sleep(for: .milliseconds(50))
        #expect(!timer.hasFired && fires.all.count == 1, "a cancelled timer never fires")
    }

    @Test("The wait after failures: doubled from the first, capped, never shorter than Retry-After")
    func backoffArithmetic() {
        let schedule = SyncSchedule(initialBackoff: .seconds(2), maximumBackoff: .seconds(60))
        #expect((1...7).map { schedule.backoff(afterFailures: $0, retryAfter: nil) }
                == [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(60), .seconds(60)])
        #expect(schedule.backoff(afterFailures: 1, retryAfter: .seconds(90)) == .seconds(90))
        #expect(schedule.backoff(afterFailures: 3, retryAfter: .seconds(1)) == .seconds(8))
        #expect(schedule.backoff(afterFailures: 10_000, retryAfter: nil) == .seconds(60))
    }

    @Test("A revoked device's loop stops with unauthorized and ends; lock() ends a running loop")
    func stopsForGood() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            let revoked = try #require(await devices.engines[1].credentials()).deviceID
            try await devices.engines[0].revoke(device: revoked)
            let (log, _) = PassLog.start(devices.engines[1], Self.quick)
            #expect(try await eventually { log.hasEnded })
            guard case .stopped(let error)? = log.all.last else { Issue.record("no stop: \(log.all)"); return }
            #expect(error.code == .unauthorized && log.all.count == 1)

            let (running, _) = PassLog.start(devices.engines[2], Self.quick)
            #expect(try await eventually { !running.all.isEmpty })
            await devices.vaults[2].lock()
            #expect(try await eventually { running.hasEnded }, "lock() ends the loop")
            await devices.lockAll()
        }
    }

    @Test("Cancelling the iterating task stops the passes: a later commit is not pushed")
    func cancellationStops() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            let (log, task) = PassLog.start(devices.engines[0], Self.quick)
            #expect(try await eventually { !log.all.isEmpty })
            task.cancel()
            #expect(try await eventually { log.hasEnded })
            let vaultID = devices.vaults[0].vaultID
            let before = await devices.server.envelopeCount(vaultID: vaultID)
            try await SyncFixtures.addRecord(to: devices.vaults[0])
            try await Task.sleep(for: .milliseconds(500))
            #expect(await devices.server.envelopeCount(vaultID: vaultID) == before)
            #expect(try await devices.engines[0].sync().uploaded > 0, "the change waits for the next sync")
            await devices.lockAll()
        }
    }

    @Test("An invalid schedule yields one stop with invalidArgument naming the field")
    func invalidSchedule() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            for (schedule, field) in [(SyncSchedule(afterCommit: .zero), "afterCommit"),
                                      (SyncSchedule(interval: .seconds(-1)), "interval"),
                                      (SyncSchedule(initialBackoff: .seconds(10), maximumBackoff: .seconds(5)), "initialBackoff")] {
                var passes: [SyncPass] = []
                for await pass in devices.engines[0].automaticSync(schedule) { passes.append(pass) }
                guard passes.count == 1, case .stopped(let error) = passes[0] else {
                    Issue.record("\(field): \(passes)")
                    continue
                }
                #expect(error.code == .invalidArgument && error.field == field)
            }
            #expect(await devices.server.envelopeCount(vaultID: devices.vaults[0].vaultID) == 0)
            await devices.lockAll()
        }
    }
}
