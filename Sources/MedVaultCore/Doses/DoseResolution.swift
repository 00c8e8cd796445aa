import Foundation

/// Decides the status of each dose from what was expected, what was logged, the
/// current instant and a grace window. Pure: both repository implementations call it.
///
/// - A dose logged as taken reads as ``DoseStatus/taken`` when `takenAt` is at most
///   `graceWindow` after `scheduledAt`, as ``DoseStatus/late`` after that.
/// - A dose logged as late, skipped or missed reads as logged.
/// - A dose not logged reads as ``DoseStatus/pending`` until `graceWindow` after its
///   time has passed (`now > scheduledAt + graceWindow`), then as ``DoseStatus/missed``.
///
/// All comparisons are on whole milliseconds, as instants are stored.
public enum DoseResolution {
    /// The default grace window: 60 minutes.
    public static let defaultGraceWindow: Duration = .seconds(3600)

    /// The status of a dose due at `scheduledAt`, given its log (if any).
    ///
    /// - Parameters:
    ///   - log: The stored log for the dose, or `nil`.
    ///   - scheduledAt: When the dose was due.
    ///   - now: The current instant.
    ///   - graceWindow: How long after its time a dose may be taken on time.
    public static func status(of log: DoseLog?, scheduledAt: Date, now: Date, graceWindow: Duration) -> DoseStatus {
        let deadline = scheduledAt.millisecondsSince1970 + milliseconds(of: graceWindow)
        switch log?.status {
        case .taken?:
            guard let takenAt = log?.takenAt else { return .taken }
            return takenAt.millisecondsSince1970 > deadline ? .late : .taken
        case .late?: return .late
        case .skipped?: return .skipped
        case .missed?: return .missed
        case .pending?, nil:
            return now.millisecondsSince1970 > deadline ? .missed : .pending
        }
    }

    /// Merges expected doses with logs: every expected dose with its status, plus
    /// every log that matches no expected dose (`isExpected == false`), sorted by
    /// instant, then medication.
    ///
    /// - Parameters:
    ///   - expected: The expected doses (see ``DoseExpansion``).
    ///   - logs: The logs of the same period.
    ///   - now: The current instant.
    ///   - graceWindow: How long after its time a dose may be taken on time.
    public static func merge(expected: [ExpectedDose], logs: [DoseLog], now: Date, graceWindow: Duration) -> [ScheduledDose] {
        var logsByDose: [ScheduledDose.ID: DoseLog] = [:]
        for log in logs {
            logsByDose[ScheduledDose.ID(medicationID: log.medicationID, scheduledAtMilliseconds: log.scheduledAt.millisecondsSince1970)] = log
        }
        var doses: [ScheduledDose] = []
        doses.reserveCapacity(expected.count)
        for dose in expected {
            let key = ScheduledDose.ID(medicationID: dose.medicationID, scheduledAtMilliseconds: dose.scheduledAt.millisecondsSince1970)
            let log = logsByDose.removeValue(forKey: key)
            doses.append(ScheduledDose(
                medicationID: dose.medicationID, scheduledAt: dose.scheduledAt, label: dose.label,
                status: status(of: log, scheduledAt: dose.scheduledAt, now: now, graceWindow: graceWindow),
                log: log, isExpected: true, amount: dose.amount
            ))
        }
        for log in logsByDose.values {
            doses.append(ScheduledDose(
                medicationID: log.medicationID, scheduledAt: log.scheduledAt, label: nil,
                status: status(of: log, scheduledAt: log.scheduledAt, now: now, graceWindow: graceWindow),
                log: log, isExpected: false
            ))
        }
        return doses.sorted {
            ($0.scheduledAt, $0.medicationID.uuidString) < ($1.scheduledAt, $1.medicationID.uuidString)
        }
    }

    /// Whole milliseconds in `duration` (rounded down).
    static func milliseconds(of duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
