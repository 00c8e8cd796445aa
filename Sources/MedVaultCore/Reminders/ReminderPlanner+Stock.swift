import Foundation

extension ReminderPlanner {
    /// The low-stock and refill events of `medication` that fire in `window`.
    ///
    /// The stock starts at the inventory's current quantity — the stock now, so a query's
    /// window should start now — and each expected dose from the window's start that has
    /// no log takes its amount (a logged taken dose already left the stock), in order, as
    /// ``SupplyForecast`` counts:
    ///
    /// - **Low stock** fires with the dose after which the stock is at or below the
    ///   inventory's minimum, when it was above it before that dose. A stock already at
    ///   or below its minimum at the window's start fires nothing (it is in
    ///   `MedicationStore.lowInventory(forPatient:)`).
    /// - **Refill** fires with the first dose on the day from which the stock lasts at
    ///   most ``ReminderOptions/refillLeadDays`` days (days are counted to the run-out
    ///   date, the day of the first dose the stock cannot cover, in `timeZone`); when
    ///   that dose is before the window, the event fired already.
    ///
    /// Both fire at that dose's time, so the same stock gives the same event from one
    /// query to the next; a refill or a correction of the stock moves it.
    ///
    /// - Parameters:
    ///   - medication: The medication; without an inventory it has no stock event.
    ///   - expected: Its expected doses over ``expansionRange(for:options:)`` of `window`.
    ///   - logs: The logs of the same doses.
    ///   - window: The half-open range of firing instants.
    ///   - timeZone: The zone of the calendar days a refill lead counts.
    ///   - options: Which events to report.
    public static func stockReminders(
        medication: Medication, expected: [ExpectedDose], logs: [DoseLog], window: Range<Date>,
        timeZone: TimeZone, options: ReminderOptions
    ) -> [DoseReminder] {
        guard let inventory = medication.inventory, options.lowStock || options.refillLeadDays != nil else { return [] }
        let logged = Set(logs.filter { $0.medicationID == medication.id }.map(\.scheduledAt.millisecondsSince1970))
        let coming = expected.filter {
            $0.medicationID == medication.id && $0.scheduledAt >= window.lowerBound
                && !logged.contains($0.scheduledAt.millisecondsSince1970)
        }
        var events: [DoseReminder] = []
        func event(_ kind: DoseReminder.Kind, at dose: ExpectedDose) {
            guard window.contains(dose.scheduledAt) else { return }
            events.append(DoseReminder(medicationID: medication.id, scheduleID: dose.scheduleID,
                                       scheduledAt: dose.scheduledAt, remindAt: dose.scheduledAt, label: nil,
                                       amount: nil, snoozeCount: 0, kind: kind))
        }
        var left = inventory.current
        var runOut: ExpectedDose?
        var lowFired = !options.lowStock || inventory.current <= inventory.minimum
        for dose in coming {
            let amount = SupplyForecast.doseAmount(of: dose, for: medication)
            guard left >= amount else {
                runOut = dose
                break
            }
            left = left - amount
            if !lowFired, left <= inventory.minimum {
                lowFired = true
                event(.lowStock, at: dose)
            }
        }
        if let lead = options.refillLeadDays, let runOut {
            // The crossing is the first expected dose on or after the threshold day,
            // looked for among every expanded dose (the range starts well before the
            // window): a crossing before the window already fired, and one later in the
            // window's first day is found the same from any query that day.
            let threshold = CalendarDate(runOut.scheduledAt, in: timeZone).adding(days: -lead)
            if threshold >= CalendarDate(window.lowerBound, in: timeZone), let dose = expected.first(where: {
                $0.medicationID == medication.id && CalendarDate($0.scheduledAt, in: timeZone) >= threshold
            }) {
                event(.refill, at: dose)
            }
        }
        return events
    }
}
