import Foundation
import MedVaultCore
import Testing

@Suite struct DoseResolutionTests {
    let due = Date(millisecondsSince1970: 1_780_000_000_000)
    let medicationID = UUID()

    func at(_ seconds: Double) -> Date { due.addingTimeInterval(seconds) }

    @Test func unloggedDosesArePendingUntilTheWindowHasPassed() {
        let grace = DoseResolution.defaultGraceWindow
        #expect(DoseResolution.status(of: nil, scheduledAt: due, now: at(-60), graceWindow: grace) == .pending)
        #expect(DoseResolution.status(of: nil, scheduledAt: due, now: at(3600), graceWindow: grace) == .pending)
        #expect(DoseResolution.status(of: nil, scheduledAt: due, now: at(3600.001), graceWindow: grace) == .missed)
        #expect(DoseResolution.status(of: nil, scheduledAt: due, now: at(1), graceWindow: .zero) == .missed)
    }

    @Test func loggedStatuses() {
        func log(_ status: DoseStatus, taken: Double? = nil) -> DoseLog {
            DoseLog(medicationID: medicationID, scheduledAt: due, status: status, takenAt: taken.map(at))
        }
        let grace = Duration.seconds(1800)
        let now = at(100_000)
        #expect(DoseResolution.status(of: log(.taken, taken: -600), scheduledAt: due, now: now, graceWindow: grace) == .taken)
        #expect(DoseResolution.status(of: log(.taken, taken: 1800), scheduledAt: due, now: now, graceWindow: grace) == .taken)
        #expect(DoseResolution.status(of: log(.taken, taken: 1801), scheduledAt: due, now: now, graceWindow: grace) == .late)
        #expect(DoseResolution.status(of: log(.late, taken: 0), scheduledAt: due, now: now, graceWindow: grace) == .late)
        #expect(DoseResolution.status(of: log(.skipped), scheduledAt: due, now: at(0), graceWindow: grace) == .skipped)
        #expect(DoseResolution.status(of: log(.missed), scheduledAt: due, now: at(0), graceWindow: grace) == .missed)
        #expect(DoseResolution.status(of: log(.pending), scheduledAt: due, now: at(0), graceWindow: grace) == .pending)
    }

    @Test func mergeKeepsUnmatchedLogsApartAndAdherenceIgnoresThem() {
        let other = UUID()
        let expected = [ExpectedDose(medicationID: medicationID, scheduledAt: at(0), label: "a"),
                        ExpectedDose(medicationID: medicationID, scheduledAt: at(7200)),
                        ExpectedDose(medicationID: medicationID, scheduledAt: at(20_000))]
        let logs = [DoseLog(medicationID: medicationID, scheduledAt: at(0), status: .taken, takenAt: at(5000)),
                    DoseLog(medicationID: other, scheduledAt: at(100), status: .taken, takenAt: at(100))]
        let doses = DoseResolution.merge(expected: expected, logs: logs, now: at(15_000), graceWindow: .seconds(3600))
        #expect(doses.map(\.status) == [.late, .taken, .missed, .pending])
        #expect(doses.map(\.isExpected) == [true, false, true, true])
        #expect(doses[0].label == "a")
        let stats = AdherenceCalculator.stats(of: doses)
        #expect(stats == AdherenceStats(expected: 2, taken: 0, late: 1, skipped: 0, missed: 1, pending: 1))
        #expect(stats.rate == 0.5)
        #expect(AdherenceCalculator.stats(of: []).rate == nil)
        #expect(AdherenceStats(expected: 4, taken: 2, late: 1, skipped: 1).rate == 0.75)
    }
}
