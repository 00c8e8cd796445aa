import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Observation: notifications after commits, value observations, cancellation, lock,
/// and another process's writes.
@Suite("Observation of committed changes")
struct ObservationTests {
    typealias F = ChangeFixtures

    @Test("A notification follows each commit touching a watched table, and none for other tables")
    func notificationsForWatchedTablesOnly() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let (collector, task) = Collector.collect(try await vault.changeNotifications(in: [.medication]))
            let patient = try await vault.patients.create(try F.patient())
            try await F.createPatients(vault, count: 2)
            await vault.checkForExternalChanges()
            let medication = try await vault.medications.create(Medication(
                patientID: patient.id, name: "Ibuprofeno", dosage: Dosage(amount: 1, unit: .tablets),
                frequency: .asNeeded, startDate: try CalendarDate(iso8601: "2026-01-01")))
            #expect(await collector.waitForCount(1))
            let first = try #require(await collector.values.first)
            #expect(first.tables == [.medication])
            let entries = try await F.entries(vault)
            #expect(first.through == (try await vault.latestChangeCursor()))
            #expect(entries.last?.recordID == medication.id)
            // Nothing more arrives for the patient writes.
            try await Task.sleep(for: .milliseconds(100))
            #expect(await collector.values.count == 1)
            task.cancel()
            #expect(await collector.waitUntilFinished())
            #expect(await vault.changeFeed.subscriberCount == 0)
            await vault.lock()
        }
    }

    @Test("A value observation yields the initial value, then one fresh, de-duplicated value per relevant change")
    func valueObservation() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let fetches = Counter()
            let (collector, task) = Collector.collect(vault.observe(tables: [.patient]) { vault in
                fetches.increment()
                return try await vault.patients.count()
            })
            #expect(await collector.waitForCount(1))
            #expect(await collector.values == [0])
            var patient = try await vault.patients.create(try F.patient())
            #expect(await collector.waitForCount(2))
            #expect(await collector.values == [0, 1])
            // A change that leaves the result equal: fetched again, not yielded.
            let fetchesBefore = fetches.value
            patient.email = "ana@example.com"
            _ = try await vault.patients.update(patient)
            #expect(await collector.wait { _ in fetches.value > fetchesBefore })
            // An unrelated table: not even fetched.
            let settled = fetches.value
            _ = try await vault.professional.save(Professional(fullName: "Ana", licenseNumber: "1", specialty: "P"))
            await vault.checkForExternalChanges()
            try await Task.sleep(for: .milliseconds(100))
            #expect(fetches.value == settled)
            _ = try await vault.patients.create(try F.patient("Bea"))
            #expect(await collector.waitForCount(3))
            #expect(await collector.values == [0, 1, 2])

            // Cancelling the iterating task ends the observation; later commits fetch nothing.
            task.cancel()
            #expect(await collector.waitUntilFinished())
            #expect(await collector.failure == nil)
            #expect(await collector.wait { _ in await vault.changeFeed.subscriberCount == 0 })
            let afterCancel = fetches.value
            _ = try await vault.patients.create(try F.patient("Carla"))
            try await Task.sleep(for: .milliseconds(100))
            #expect(fetches.value == afterCancel)
            await vault.lock()
        }
    }

    @Test("A burst of commits coalesces: the observation ends on the final value")
    func burstsCoalesce() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let fetches = Counter()
            let (collector, task) = Collector.collect(vault.observe(tables: [.patient]) { vault in
                fetches.increment()
                return try await vault.patients.count()
            })
            #expect(await collector.waitForCount(1))
            for _ in 0..<50 { try await F.createPatients(vault, count: 1) }
            #expect(await collector.wait { await $0.values.last == 50 })
            let values = await collector.values
            #expect(values == values.sorted() && Set(values).count == values.count)
            #expect(fetches.value <= 51)
            task.cancel()
            await vault.lock()
        }
    }

    @Test("lock() ends running observations cleanly, even with a fetch in flight, and touches no closed pool")
    func lockEndsObservation() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let (notifications, notificationTask) = Collector.collect(try await vault.changeNotifications())
            let slow = Counter()
            let (values, valueTask) = Collector.collect(vault.observe(tables: [.patient]) { vault in
                slow.increment()
                if slow.value > 1 { try? await Task.sleep(for: .milliseconds(200)) }
                return try await vault.patients.count()
            })
            #expect(await values.waitForCount(1))
            _ = try await vault.patients.create(try F.patient())
            #expect(await values.wait { _ in slow.value >= 2 })  // the slow fetch is running
            await vault.lock()
            #expect(await notifications.waitUntilFinished())
            #expect(await values.waitUntilFinished())
            #expect(await values.failure == nil)
            #expect(await vault.changeFeed.subscriberCount == 0)
            _ = await (notificationTask.value, valueTask.value)
            // After lock: new observations end at once, subscriptions are refused.
            let (late, _) = Collector.collect(vault.observe { vault in try await vault.patients.count() })
            #expect(await late.waitUntilFinished())
            #expect(await late.values.isEmpty)
            await expectMedVaultError(.locked) { try await vault.changeNotifications() }
            await vault.checkForExternalChanges()
        }
    }

    @Test("Another process's write is seen within the polling interval, or at once when asked")
    func secondProcessWrites() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            await vault.setChangePollingInterval(.milliseconds(100))
            let (collector, task) = Collector.collect(try await vault.changeNotifications(in: [.patient]))
            let child = try ProbeChild(["add-patients", vault.layout.folder.path], outputURL: directory.file("probe.out"))
            #expect(try await child.waitForLines(1))
            let pollsStarted = await vault.changeFeed.pollCount
            #expect(await collector.waitForCount(1))
            let firstNotifyingPoll = await vault.changeFeed.notifyingPolls.first
            child.sigkill()
            try await child.waitForExit()
            #expect(await collector.values.first?.tables == [.patient])
            // The documented delay: one polling interval plus one read — the first poll that starts
            // after the commit reports it. Counted in polls, not seconds: alone this takes 0.1–0.3 s,
            // but the whole suite in parallel on a loaded 2-core VM delays every task by seconds.
            #expect(firstNotifyingPoll != nil)
            #expect((firstNotifyingPoll ?? .max) <= pollsStarted + 1)
            let ids = Set(child.lines.compactMap(UUID.init(uuidString:)))
            let logged = Set(try await F.entries(vault).map(\.recordID))
            #expect(!ids.isEmpty && ids.isSubset(of: logged))
            task.cancel()

            // Without polling, checkForExternalChanges delivers before it returns.
            await vault.setChangePollingInterval(nil)
            // A poll already under way when polling stopped may still be reading (a loaded machine
            // delays it): let it finish, so that nothing below can come from it.
            await vault.checkForExternalChanges()
            let (asked, askedTask) = Collector.collect(try await vault.changeNotifications(in: [.patient]))
            let second = try ProbeChild(["add-patients", vault.layout.folder.path], outputURL: directory.file("probe2.out"))
            #expect(try await second.waitForLines(1))
            second.sigkill()
            try await second.waitForExit()
            try await Task.sleep(for: .milliseconds(300))
            #expect(await asked.values.isEmpty)
            await vault.checkForExternalChanges()
            #expect(await asked.waitForCount(1, timeout: .seconds(1)))
            askedTask.cancel()
            await vault.lock()
        }
    }
}
