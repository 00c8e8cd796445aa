extension MedicationSchedule {
    /// Whether this version is in force on `day`: within ``effectiveFrom`` (when set)
    /// … ``effectiveUntil`` and not paused. The medication's own start and end dates
    /// are checked by ``DoseExpansion``.
    public func isInForce(on day: CalendarDate) -> Bool {
        if let effectiveFrom, day < effectiveFrom { return false }
        if let effectiveUntil, day > effectiveUntil { return false }
        return !pauses.contains { $0.contains(day) }
    }

    /// Whether this schedule expects doses on `day`: in force, on one of its
    /// ``daysOfWeek``, on a day of its ``interval`` and, with a taper, within a step.
    public func expectsDoses(on day: CalendarDate) -> Bool {
        guard isInForce(on: day), applies(on: day) else { return false }
        if let interval, !interval.contains(day) { return false }
        return taperSteps.isEmpty || taperSteps.contains { $0.contains(day) }
    }

    /// The amount of the dose at `time` on `day`: the taper step's, else the time's
    /// own, else `nil` (the medication's dosage).
    public func amount(on day: CalendarDate, at time: TimeOfDay) -> MedicationQuantity? {
        if let step = taperSteps.first(where: { $0.contains(day) }) { return step.amount }
        return time.amount
    }

    /// The pause with no end, if the schedule is paused until further notice.
    public var openPause: SchedulePause? {
        pauses.first { $0.through == nil }
    }
}
