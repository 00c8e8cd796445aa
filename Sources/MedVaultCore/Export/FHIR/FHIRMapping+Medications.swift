import Foundation

extension FHIRMapping {
    /// A MedicationStatement per medication, a MedicationRequest when it needs a
    /// prescription, and a MedicationAdministration per dose log.
    package static func medication(_ record: PatientRecordExport.MedicationRecord, practitioner: Professional?) -> [FHIRJSON] {
        let m = record.medication
        let subject = reference("Patient", id(m.patientID))
        let concept = object([("text", .string(m.name)),
                              ("coding", m.genericName.map { [["display": .string($0)]] })])
        let dosages = dosages(m, schedules: record.schedules)
        var resources: [FHIRJSON] = [object([
            ("resourceType", "MedicationStatement"), ("id", .string(id(m.id))), ("meta", meta(m.updatedAt)),
            ("status", m.isActive ? "active" : "stopped"), ("medicationCodeableConcept", concept),
            ("subject", subject),
            ("effectivePeriod", object([("start", .string(m.startDate.iso8601)),
                                        ("end", m.endDate.map { .string($0.iso8601) })])),
            ("dateAsserted", instant(m.createdAt)),
            ("dosage", .array(dosages)),
        ])]
        if m.requiresPrescription {
            resources.append(object([
                ("resourceType", "MedicationRequest"), ("id", .string(derivedID("request", m.id))),
                ("meta", meta(m.updatedAt)),
                ("status", m.isActive ? "active" : "stopped"), ("intent", "order"),
                ("medicationCodeableConcept", concept), ("subject", subject), ("authoredOn", instant(m.createdAt)),
                ("requester", practitioner.map { reference("Practitioner", id($0.id)) }),
                ("dosageInstruction", .array(dosages)),
            ]))
        }
        for log in record.doseLogs {
            let status: String = switch log.status {
            case .taken, .late: "completed"
            case .skipped, .missed: "not-done"
            case .pending: "unknown"
            }
            resources.append(object([
                ("resourceType", "MedicationAdministration"), ("id", .string(id(log.id))), ("meta", meta(log.updatedAt)),
                ("status", .string(status)),
                ("statusReason", log.skipReason.map { [["text": .string($0.rawValue)]] }),
                ("medicationCodeableConcept", concept), ("subject", subject),
                ("supportingInformation", [reference("MedicationStatement", id(m.id))]),
                ("effectiveDateTime", instant(log.takenAt ?? log.scheduledAt)),
                ("note", log.notes.map { [["text": .string($0)]] }),
                ("dosage", log.consumesDose
                    ? ["dose": quantity(Dosage(amount: log.amount ?? m.dosage.amount, unit: m.dosage.unit))] : nil),
            ]))
        }
        return resources
    }

    package static func quantity(_ dosage: Dosage) -> FHIRJSON {
        ["value": .number(dosage.amount.description), "unit": .string(dosage.unit.rawValue)]
    }

    package static func timeOfDay(_ time: TimeOfDay) -> FHIRJSON {
        .string(String(format: "%02d:%02d:00", time.hour, time.minute))
    }

    /// The medication's dosage (its frequency as a Timing), then one per schedule (its
    /// times and days).
    package static func dosages(_ m: Medication, schedules: [MedicationSchedule]) -> [FHIRJSON] {
        let repeatTiming: FHIRJSON? = switch m.frequency {
        case .timesPerDay(let count): ["frequency": .integer(count), "period": .number("1"), "periodUnit": "d"]
        case .everyNHours(let hours, let start):
            ["frequency": .number("1"), "period": .integer(hours), "periodUnit": "h", "timeOfDay": [timeOfDay(start)]]
        case .specificTimes(let times): ["timeOfDay": .array(times.map(timeOfDay))]
        case .asNeeded: nil
        }
        // At most N doses in any 24 hours: FHIR's limit is an amount per period, so N
        // times the dose, in the dose's unit, per one day.
        let maximumPerDay: FHIRJSON? = m.maximumDosesPer24Hours.map { maximum in
            let amount = MedicationQuantity(thousandths: m.dosage.amount.thousandths.multipliedReportingOverflow(
                by: Int64(maximum)).partialValue)
            return ["numerator": quantity(Dosage(amount: amount, unit: m.dosage.unit)),
                    "denominator": ["value": .number("1"), "unit": "d", "system": "http://unitsofmeasure.org",
                                    "code": "d"]]
        }
        /// `doseQuantity` is the medication's dose, left out where a schedule sets other
        /// amounts (a taper or per-time amounts, not exported: docs/medico-legal.md).
        func dosage(_ timing: FHIRJSON?, withDose: Bool = true) -> FHIRJSON {
            object([
                ("text", m.instructions.map(FHIRJSON.string)),
                ("timing", timing.map { ["repeat": $0] }),
                ("asNeededBoolean", .bool(m.frequency.isAsNeeded)),
                ("route", ["text": .string(m.route.rawValue)]),
                ("doseAndRate", withDose ? [["doseQuantity": quantity(m.dosage)]] : nil),
                ("maxDosePerPeriod", maximumPerDay),
            ])
        }
        let codes: [Weekday: String] = [.monday: "mon", .tuesday: "tue", .wednesday: "wed", .thursday: "thu",
                                         .friday: "fri", .saturday: "sat", .sunday: "sun"]
        return [dosage(repeatTiming)] + schedules.map { schedule in
            // The version's dates bound its timing. Every N days is the schedule's times per
            // N days, anchored by a bounds start that is a dosing day of the cycle.
            let start = schedule.interval.map { cycleStart($0, from: schedule.effectiveFrom) } ?? schedule.effectiveFrom
            let bounds: FHIRJSON? = start == nil && schedule.effectiveUntil == nil ? nil
                : object([("start", start.map { .string($0.iso8601) }),
                          ("end", schedule.effectiveUntil.map { .string($0.iso8601) })])
            let setsOwnAmounts = !schedule.taperSteps.isEmpty || schedule.times.contains { $0.amount != nil }
            return dosage(object([
                ("boundsPeriod", bounds),
                ("frequency", schedule.interval.map { _ in .integer(schedule.times.count) }),
                ("period", schedule.interval.map { .integer($0.days) }),
                ("periodUnit", schedule.interval.map { _ in "d" }),
                ("timeOfDay", .array(schedule.times.map(timeOfDay))),
                ("dayOfWeek", .array(schedule.daysOfWeek.sorted { $0.rawValue < $1.rawValue }
                    .compactMap { codes[$0].map(FHIRJSON.string) })),
            ]), withDose: !setsOwnAmounts)
        }
    }

    /// The first dosing day of `interval`'s cycle on or after `from` (or its start date).
    package static func cycleStart(_ interval: DayInterval, from: CalendarDate?) -> CalendarDate {
        let first = max(from?.dayNumber ?? interval.startDate.dayNumber, interval.startDate.dayNumber)
        let offset = (first - interval.startDate.dayNumber) % max(interval.days, 1)
        return CalendarDate(dayNumber: offset == 0 ? first : first + max(interval.days, 1) - offset)
    }
}
