import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// W6 — medications: today's doses and 30-day adherence of a patient with three
/// daily medications and a year of dose logs.
///
/// Fixture: patients through `patients.create([Patient])`, three medications each
/// through `medications.create` (08:00, 08:00 and 21:00 daily, Europe/Madrid), then a
/// year of dose logs (one per medication and day: mostly taken, some late, skipped or
/// missed) written by raw C with the `dose_log` insert (building only, not measured).
/// The store's clock is fixed at "today" 12:00.
///
/// MedVault: `medications.doses(forPatient:on:in:)` and
/// `medications.adherence(forPatient:from:through:in:)` (each: one read transaction
/// of three statements — medications, schedules, logs in range — then expansion and
/// resolution).
/// Raw C, precisely: the same three statements in one `BEGIN DEFERRED … COMMIT`
/// read transaction, as the store's `doseInputs` runs them, every column of every
/// row copied out; dose-log rows turned into
/// `DoseLog` values; the `Medication` values looked up by the id read from the row in
/// an in-memory copy (decoding those three rows is the part of MedVault's work the
/// reference skips); then the same `DoseExpansion`, `DoseResolution.merge` and
/// `AdherenceCalculator` code. Both sides' results are compared.
struct MedicationWorkload: Workload {
    let id = "W6"
    let title = "today's doses and 30-day adherence"

    static let zone = TimeZone(identifier: "Europe/Madrid") ?? TimeZone(secondsFromGMT: 3600) ?? .current
    static let today = CalendarDate(dayNumber: CalendarDate(ClinicData.stamp, in: zone).dayNumber + 166)

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let patientCount = context.scaled(2_000, minimum: 100)
        let key = context.databaseKey(salt: 6)
        let url = context.databaseURL("w6.db")
        let now = LocalTime.instant(on: Self.today, minutesSinceMidnight: 12 * 60, in: Self.zone)
        let data = ClinicData(patientCount: patientCount, sessionCount: 0, seed: context.seed)
        let start = ContinuousClock.now

        let pool = try await VaultDatabase.open(at: url, key: key.secure, mode: .createIfMissing,
                                               migrator: MedVaultSchema.migrator)
        let store = SQLCipherMedicationStore(pool: pool, clock: .fixed(now))
        try await SQLCipherPatientRepository(pool: pool, clock: .fixed(ClinicData.stamp)).create(data.patients)
        var medications: [UUID: Medication] = [:]
        var names = SpanishNameGenerator(seed: context.seed ^ 6)
        let firstDay = Self.today.adding(days: -365)
        let plans: [(String, MedicationFrequency)] = [
            ("Sertralina", .timesPerDay(1)), ("Omeprazol", .timesPerDay(1)),
            ("Lorazepam", .specificTimes([TimeOfDay(hour: 21)])),
        ]
        for patient in data.patients {
            for (name, frequency) in plans {
                let medication = Medication(id: names.uuid().uuid, patientID: patient.id, name: name,
                                            dosage: Dosage(amount: MedicationQuantity(50), unit: .mg),
                                            frequency: frequency, startDate: firstDay)
                let stored = try await store.create(medication)
                medications[stored.id] = stored
            }
        }
        try writeLogs(medications: Array(medications.values), from: firstDay, key: key.bytes, url: url)
        context.log(String(format: "W6: %d patients, %d medications, a year of logs built in %.1f s",
                           patientCount, medications.count, (ContinuousClock.now - start).seconds))

        let raw = try RawSQLCipher(path: url.path, key: .raw(key.bytes), role: .reader)
        let reference = RawMedicationReader(db: raw, medications: medications, now: now)
        try reference.prepare()
        var rng = SplitMix64(seed: context.seed).fork(0x5736)
        let order = data.patients.map(\.id).shuffled(using: &rng)
        let monthStart = Self.today.adding(days: -29)
        var mismatches = 0
        let today = try await Alternating.measure(order, warmUps: 20, medVault: { id in
            _ = try await store.doses(forPatient: id, on: Self.today, in: Self.zone)
        }, reference: { id in
            _ = try reference.doses(forPatient: id, from: Self.today, through: Self.today, in: Self.zone)
        })
        let adherence = try await Alternating.measure(order, warmUps: 20, medVault: { id in
            _ = try await store.adherence(forPatient: id, from: monthStart, through: Self.today, in: Self.zone)
        }, reference: { id in
            _ = AdherenceCalculator.stats(of: try reference.doses(forPatient: id, from: monthStart,
                                                                  through: Self.today, in: Self.zone))
        })
        for id in order.prefix(50) {
            let a = try await store.adherence(forPatient: id, from: monthStart, through: Self.today, in: Self.zone)
            let b = AdherenceCalculator.stats(of: try reference.doses(forPatient: id, from: monthStart,
                                                                      through: Self.today, in: Self.zone))
            let c = try await store.doses(forPatient: id, on: Self.today, in: Self.zone)
            let d = try reference.doses(forPatient: id, from: Self.today, through: Self.today, in: Self.zone)
            if a != b || a.expected < 80 || c != d || c.count != 3 {
                if mismatches == 0 { context.log("W6 mismatch: \(a) vs \(b); \(c.count) vs \(d.count) doses; equal: \(c == d)") }
                mismatches += 1
            }
        }
        await pool.close()
        key.secure.wipe()
        guard mismatches == 0 else { throw BenchmarkError("W6: \(mismatches) patients differ between the sides") }

        let label = "W6 medications"
        return [
            Measurement(label: label + ", today's doses p50 (\(order.count) patients)", referenceLabel: "raw C + same logic",
                        medVault: Statistics.p50(today.medVault), reference: Statistics.p50(today.reference),
                        unit: .microseconds, target: 1.5, note: nil),
            Measurement(label: label + ", today's doses p99", referenceLabel: "raw C + same logic",
                        medVault: Statistics.p99(today.medVault), reference: Statistics.p99(today.reference),
                        unit: .microseconds, target: nil, note: nil),
            Measurement(label: label + ", 30-day adherence p50", referenceLabel: "raw C + same logic",
                        medVault: Statistics.p50(adherence.medVault), reference: Statistics.p50(adherence.reference),
                        unit: .microseconds, target: 1.5,
                        note: "reference = the store's three SQL statements in one read transaction + DoseExpansion/DoseResolution/AdherenceCalculator; "
                            + "see MedicationWorkload.swift"),
            Measurement(label: label + ", 30-day adherence p99", referenceLabel: "raw C + same logic",
                        medVault: Statistics.p99(adherence.medVault), reference: Statistics.p99(adherence.reference),
                        unit: .microseconds, target: nil, note: nil),
        ]
    }

    /// A year of logs, one per medication and day, through raw C in one transaction.
    private func writeLogs(medications: [Medication], from firstDay: CalendarDate, key: [UInt8], url: URL) throws {
        let db = try RawSQLCipher(path: url.path, key: .raw(key))
        let insert = try db.prepare("""
            INSERT INTO dose_log (id, medication_id, patient_id, scheduled_at, taken_at, status, skip_reason, \
            notes, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, 1)
            """)
        var rng = SplitMix64(seed: 0x5736)
        let stamp = ClinicData.stamp.millisecondsSince1970
        try db.exec("BEGIN IMMEDIATE")
        for medication in medications {
            let minutes = DoseExpansion.times(for: medication.frequency)[0].minutesSinceMidnight
            var day = firstDay
            while day < Self.today {
                defer { day = day.adding(days: 1) }
                let scheduled = LocalTime.instant(on: day, minutesSinceMidnight: minutes, in: Self.zone)
                    .millisecondsSince1970
                let roll = rng.next() % 20
                let (status, taken): (DoseStatus, Int64?) = switch roll {
                case 0: (.skipped, nil)
                case 1: (.missed, nil)
                case 2: (.late, scheduled + 2 * 3_600_000)
                default: (.taken, scheduled + 600_000)
                }
                try insert.bind(1, bytes: rng.bytes(16))
                try insert.bind(2, bytes: medication.id.bytes)
                try insert.bind(3, bytes: medication.patientID.bytes)
                try insert.bind(4, scheduled)
                if let taken { try insert.bind(5, taken) } else { try insert.bindNull(5) }
                try insert.bind(6, status.rawValue)
                try insert.bind(7, stamp)
                try insert.bind(8, stamp)
                try insert.run()
            }
        }
        try db.exec("COMMIT; PRAGMA wal_checkpoint(TRUNCATE);")
    }
}

/// The raw reference of W6 (see ``MedicationWorkload``).
final class RawMedicationReader {
    let db: RawSQLCipher
    let medications: [UUID: Medication]
    let now: Date
    /// Keeps the copied-out columns observable, so they are not optimised away.
    private(set) var sink = 0
    private var statements: (medications: RawStatement, schedules: RawStatement, logs: RawStatement)?
    private var transaction: (begin: RawStatement, commit: RawStatement)?

    init(db: RawSQLCipher, medications: [UUID: Medication], now: Date) {
        self.db = db
        self.medications = medications
        self.now = now
    }

    func prepare() throws {
        statements = (try db.prepare(ClinicSQL.medicationsOfPatient), try db.prepare(ClinicSQL.schedulesOfPatient),
                      try db.prepare(ClinicSQL.logsOfPatient))
        transaction = (try db.prepare("BEGIN DEFERRED"), try db.prepare("COMMIT"))
    }

    func doses(forPatient patientID: UUID, from first: CalendarDate, through last: CalendarDate,
               in zone: TimeZone) throws -> [ScheduledDose] {
        guard let (medicationQuery, scheduleQuery, logQuery) = statements, let (begin, commit) = transaction else {
            throw BenchmarkError("not prepared")
        }
        let range = LocalTime.interval(from: first, through: last, in: zone)
        let patient = patientID.bytes
        var found: [Medication] = []
        var copiedBytes = 0
        try begin.run()
        try medicationQuery.bind(1, bytes: patient)
        while try medicationQuery.step() {
            // Every column copied out (as a C program would into its own struct).
            for index in Int32(2)..<24 where !medicationQuery.isNull(at: index) {
                copiedBytes &+= medicationQuery.text(at: index).utf8.count
            }
            let id = UUID(bytes: medicationQuery.blob(at: 0))
            if let medication = medications[id] { found.append(medication) }
        }
        medicationQuery.reset()
        found.sort(by: Medication.listOrder)
        try scheduleQuery.bind(1, bytes: patient)
        while try scheduleQuery.step() {
            for index in Int32(0)..<9 { copiedBytes &+= scheduleQuery.text(at: index).utf8.count }
        }
        scheduleQuery.reset()
        sink = copiedBytes
        try logQuery.bind(1, bytes: patient)
        try logQuery.bind(2, range.lowerBound.millisecondsSince1970)
        try logQuery.bind(3, range.upperBound.millisecondsSince1970)
        var logs: [DoseLog] = []
        while try logQuery.step() {
            guard let status = DoseStatus(rawValue: logQuery.text(at: 4)) else { throw BenchmarkError("bad status") }
            logs.append(DoseLog(
                id: UUID(bytes: logQuery.blob(at: 0)), medicationID: UUID(bytes: logQuery.blob(at: 1)),
                scheduledAt: Date(millisecondsSince1970: logQuery.int64(at: 2)), status: status,
                takenAt: logQuery.optionalInt64(at: 3).map { Date(millisecondsSince1970: $0) },
                skipReason: logQuery.optionalText(at: 5).map(SkipReason.init(rawValue:)),
                notes: logQuery.optionalText(at: 6),
                createdAt: Date(millisecondsSince1970: logQuery.int64(at: 7)),
                updatedAt: Date(millisecondsSince1970: logQuery.int64(at: 8)), version: logQuery.int64(at: 9)))
        }
        logQuery.reset()
        try commit.run()
        var expected: [ExpectedDose] = []
        for medication in found {
            expected += DoseExpansion.expectedDoses(for: medication, schedules: [], in: range, fallbackTimeZone: zone)
        }
        logs = logs.filter { range.contains($0.scheduledAt) }
        return DoseResolution.merge(expected: expected, logs: logs, now: now,
                                    graceWindow: DoseResolution.defaultGraceWindow)
    }
}

extension UUID {
    /// The identifier stored as these 16 bytes.
    init(bytes: [UInt8]) {
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { target in
            for (index, byte) in bytes.prefix(16).enumerated() { target[index] = byte }
        }
        self.init(uuid: value)
    }
}
