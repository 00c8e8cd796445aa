import Foundation

/// The reminder rules, pure, used by every store: which doses to remind of and
/// when, and what a snooze stores.
///
/// - A reminder is for an expected dose that has no log (any status).
/// - It fires at the dose time minus its schedule's ``ReminderSettings/leadMinutes``
///   (0 for a frequency-derived dose), or, once snoozed, at the end of the last snooze.
/// - Its follow-up fires ``ReminderOptions/followUpMinutes`` after that, and never
///   before that long after the dose time: a dose reminded early is followed up after
///   its time, a snoozed one after its snooze.
/// - Stock events (``DoseReminder/Kind/lowStock``, ``DoseReminder/Kind/refill``) follow
///   the stock through the expected doses: see ``stockReminders(medication:expected:logs:window:timeZone:options:)``.
/// - Lead times and snoozes are exact durations from instants that ``LocalTime``
///   already resolved, so a reminder 30 minutes before a dose just after a
///   daylight-saving jump is 30 real minutes before it.
public enum ReminderPlanner {
    /// How far before a window a dose may lie and still be reminded of inside it,
    /// after snoozes (at most 10 snoozes of 240 minutes).
    public static let snoozeLookBack: TimeInterval = 40 * 3600

    /// The longest window ``MedicationStore/upcomingReminders(forPatient:from:until:timeZone:options:)``
    /// accepts: 31 days (a notification scheduler refreshes far more often; a longer
    /// window would only make a hostile caller expand years of doses).
    public static let maximumWindow: TimeInterval = 31 * 86_400

    /// Instants a reminder query or snooze accepts: within about ±3,000 years of 1970,
    /// far beyond any dose and far from the limits of the integer arithmetic behind them.
    package static func isPlausible(_ date: Date) -> Bool {
        abs(date.timeIntervalSince1970) < 1e11
    }

    /// Refuses an implausible dose instant before a store turns it into milliseconds.
    ///
    /// - Throws: `validation`, field `scheduledAt`.
    package static func checkDoseInstant(_ scheduledAt: Date) throws {
        guard isPlausible(scheduledAt) else {
            throw MedVaultError.validation("scheduledAt", "is not a dose of this schedule")
        }
    }

    /// The instant range to expand doses over for reminders in `window`: back far enough
    /// for the longest snoozes and follow-up, ahead far enough for the longest lead time
    /// (1,440 minutes) and, with `options`, for the refill lead and the run-out after it.
    public static func expansionRange(for window: Range<Date>, options: ReminderOptions = .dosesOnly) -> Range<Date> {
        let followUp = TimeInterval(options.followUpMinutes ?? 0) * 60
        let refill = TimeInterval((options.refillLeadDays ?? 0) + 2) * 86_400
        let ahead = options.refillLeadDays == nil && !options.lowStock ? 86_400 : max(86_400, refill)
        return window.lowerBound.addingTimeInterval(-snoozeLookBack - followUp)..<window.upperBound.addingTimeInterval(ahead)
    }

    /// The dose reminders and follow-ups that fire in `window`, sorted by firing
    /// instant, then medication, then kind.
    ///
    /// - Parameters:
    ///   - expected: Expected doses over ``expansionRange(for:options:)`` of `window`.
    ///   - schedules: The schedules, for their reminder settings.
    ///   - logs: The logs of the same doses.
    ///   - snoozes: The snoozes of the same doses.
    ///   - window: The half-open range of firing instants.
    ///   - options: Whether and when doses are followed up; its stock events are
    ///     ``stockReminders(medication:expected:logs:window:timeZone:options:)``'s.
    public static func reminders(
        expected: [ExpectedDose], schedules: [MedicationSchedule], logs: [DoseLog], snoozes: [DoseSnooze],
        in window: Range<Date>, options: ReminderOptions = .dosesOnly
    ) -> [DoseReminder] {
        let settings = Dictionary(schedules.map { ($0.id, $0.reminders) }, uniquingKeysWith: { first, _ in first })
        let logged = Set(logs.map {
            ScheduledDose.ID(medicationID: $0.medicationID, scheduledAtMilliseconds: $0.scheduledAt.millisecondsSince1970)
        })
        var snoozed: [ScheduledDose.ID: DoseSnooze] = [:]
        for snooze in snoozes {
            snoozed[ScheduledDose.ID(medicationID: snooze.medicationID,
                                     scheduledAtMilliseconds: snooze.scheduledAt.millisecondsSince1970)] = snooze
        }
        var reminders: [DoseReminder] = []
        for dose in expected {
            let id = ScheduledDose.ID(medicationID: dose.medicationID,
                                      scheduledAtMilliseconds: dose.scheduledAt.millisecondsSince1970)
            guard !logged.contains(id) else { continue }
            let lead = dose.scheduleID.flatMap { settings[$0] }?.leadMinutes ?? 0
            let snooze = snoozed[id]
            let remindAt = snooze?.snoozedUntil ?? dose.scheduledAt.addingTimeInterval(-Double(lead) * 60)
            let reminder = DoseReminder(
                medicationID: dose.medicationID, scheduleID: dose.scheduleID, scheduledAt: dose.scheduledAt,
                remindAt: remindAt, label: dose.label, amount: dose.amount, snoozeCount: snooze?.count ?? 0)
            if window.contains(remindAt) { reminders.append(reminder) }
            if let minutes = options.followUpMinutes {
                var followUp = reminder
                followUp.kind = .followUp
                followUp.remindAt = max(remindAt, dose.scheduledAt).addingTimeInterval(Double(minutes) * 60)
                if window.contains(followUp.remindAt) { reminders.append(followUp) }
            }
        }
        return sorted(reminders)
    }

    /// `reminders` by firing instant, then medication, then kind (in ``DoseReminder/Kind``'s order).
    static func sorted(_ reminders: [DoseReminder]) -> [DoseReminder] {
        let rank = Dictionary(uniqueKeysWithValues: DoseReminder.Kind.allCases.enumerated().map { ($1, $0) })
        return reminders.sorted {
            ($0.remindAt, $0.medicationID.uuidString, rank[$0.kind]!) < ($1.remindAt, $1.medicationID.uuidString, rank[$1.kind]!)
        }
    }

    /// The snooze to store when the patient snoozes the reminder of the dose at
    /// `scheduledAt` at `now`.
    ///
    /// - Parameters:
    ///   - medicationID: The medication.
    ///   - scheduledAt: The dose.
    ///   - existing: The dose's stored snooze, if any.
    ///   - settings: The schedule's reminder settings.
    ///   - now: The store clock's now.
    /// - Throws: ``MedVaultError/Code/limitExceeded`` (field `reminders.maximumSnoozes`)
    ///   when the dose was already snoozed the maximum number of times.
    public static func snoozed(
        medicationID: UUID, scheduledAt: Date, existing: DoseSnooze?, settings: ReminderSettings, now: Date
    ) throws -> DoseSnooze {
        let count = (existing?.count ?? 0) + 1
        guard count <= settings.maximumSnoozes else {
            throw MedVaultError(.limitExceeded, field: "reminders.maximumSnoozes",
                                reason: "this reminder cannot be snoozed again")
        }
        return DoseSnooze(medicationID: medicationID, scheduledAt: scheduledAt.truncatedToMilliseconds,
                          snoozedUntil: now.addingTimeInterval(Double(settings.snoozeMinutes) * 60).truncatedToMilliseconds,
                          count: count)
    }
}

extension ReminderPlanner {
    /// Checks that `scheduledAt` is a dose `schedule` expects for `medication` and
    /// that it is not logged, then returns the snooze to store.
    ///
    /// - Throws: `validation` (field `scheduledAt`) when the schedule expects no dose
    ///   then; `duplicate` when the dose is already logged; `limitExceeded` as
    ///   ``snoozed(medicationID:scheduledAt:existing:settings:now:)``.
    package static func snooze(
        _ scheduledAt: Date, of schedule: MedicationSchedule, medication: Medication,
        existing: DoseSnooze?, isLogged: Bool, now: Date
    ) throws -> DoseSnooze {
        try checkDoseInstant(scheduledAt)
        let instant = scheduledAt.truncatedToMilliseconds
        let doses = DoseExpansion.expectedDoses(
            for: medication, schedules: [schedule], in: instant..<instant.addingTimeInterval(0.001),
            fallbackTimeZone: .gmt)
        guard doses.contains(where: { $0.scheduleID == schedule.id }) else {
            throw MedVaultError.validation("scheduledAt", "is not a dose of this schedule")
        }
        if isLogged { throw MedVaultError.doseAlreadyLogged }
        return try snoozed(medicationID: medication.id, scheduledAt: instant, existing: existing,
                           settings: schedule.reminders, now: now)
    }

    /// Checks that `scheduledAt` is a dose `medication`'s frequency expects, read in
    /// `timeZone` (it has no schedule), and that it is not logged, then returns the
    /// snooze to store, with ``ReminderSettings/standard``'s snooze length and maximum.
    ///
    /// - Throws: `validation` (field `scheduledAt`) when the frequency expects no dose
    ///   then (a scheduled medication's doses are snoozed through their schedule);
    ///   `duplicate` when the dose is already logged; `limitExceeded` as
    ///   ``snoozed(medicationID:scheduledAt:existing:settings:now:)``.
    package static func snoozeFrequencyDose(
        _ scheduledAt: Date, of medication: Medication, schedules: [MedicationSchedule], timeZone: TimeZone,
        existing: DoseSnooze?, isLogged: Bool, now: Date
    ) throws -> DoseSnooze {
        try checkDoseInstant(scheduledAt)
        let instant = scheduledAt.truncatedToMilliseconds
        let doses = DoseExpansion.expectedDoses(
            for: medication, schedules: schedules, in: instant..<instant.addingTimeInterval(0.001),
            fallbackTimeZone: timeZone)
        guard doses.contains(where: { $0.scheduleID == nil }) else {
            throw MedVaultError.validation("scheduledAt", "is not a dose of this medication's frequency")
        }
        if isLogged { throw MedVaultError.doseAlreadyLogged }
        return try snoozed(medicationID: medication.id, scheduledAt: instant, existing: existing,
                           settings: .standard, now: now)
    }
}
