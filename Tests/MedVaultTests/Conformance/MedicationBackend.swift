import Foundation
import MedVaultCore
import Testing

/// One implementation of ``MedicationStore`` under test, with the hooks the shared
/// medication conformance suite needs.
struct MedicationFixture: Sendable {
    /// The store under test.
    let store: any MedicationStore
    /// Creates a patient the store accepts medications for (both stores refuse a
    /// medication for an unknown patient) and returns its identifier.
    let registerPatient: @Sendable () async throws -> UUID
    /// Makes the next write that reaches `point` fail inside its transaction.
    let failNextWrite: @Sendable (_MedicationFaultPoint) async -> Void
}

/// A way to build a fresh, empty ``MedicationFixture``; the conformance tests run
/// once per element of ``all``.
struct MedicationBackend: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable (RecordClock) async throws -> MedicationFixture

    var testDescription: String { name }

    /// The medications of an `InMemoryVault`, whose patients it checks.
    static let inMemory = MedicationBackend(name: "in-memory") { clock in
        let vault = InMemoryVault(clock: clock)
        let store = vault.medications
        return MedicationFixture(
            store: store,
            registerPatient: {
                try await vault.patients.create(Patient(
                    firstName: "Test", lastName: "Patient", dateOfBirth: try CalendarDate(iso8601: "1980-01-01"))).id
            },
            failNextWrite: { point in await store._failNextWrite(at: point) }
        )
    }

    /// Every backend the conformance suite runs against.
    static let all: [MedicationBackend] = [
        .inMemory,
        .sqlcipher,  // defined in Tests/MedVaultTests/Medications/SQLCipherMedicationBackend.swift
    ]
}

/// A clock a test can move. `@unchecked Sendable` is safe: the only state, `date`,
/// is read and written under `lock`.
final class MedicationTestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Date

    init(_ date: Date) { self.date = date }

    var now: Date {
        get { lock.withLock { date } }
        set { lock.withLock { date = newValue } }
    }

    var recordClock: RecordClock { RecordClock { [self] in now } }
}

// MARK: - Shared helpers of the medication conformance suite

/// Helpers of the medication conformance suite, in a namespace so they cannot clash
/// with other suites of the test target.
enum MT {
    // Both identifiers are in every tz database; a missing one is a broken system.
    static let madrid = TimeZone(identifier: "Europe/Madrid") ?? .gmt
    static let newYork = TimeZone(identifier: "America/New_York") ?? .gmt

    /// `2026-03-29` → CalendarDate, for literals known to be valid.
    static func day(_ text: String) -> CalendarDate {
        (try? CalendarDate(iso8601: text)) ?? CalendarDate(dayNumber: 0)
    }

    /// The instant of an ISO 8601 UTC text such as `2026-03-29T01:30:00Z`.
    static func utc(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    /// The instant `hour:minute` local wall time in `zone` on `day`, for unambiguous times.
    static func local(_ day: CalendarDate, _ hour: Int, _ minute: Int = 0, _ zone: TimeZone) -> Date {
        LocalTime.instant(on: day, minutesSinceMidnight: hour * 60 + minute, in: zone)
    }

    static func medication(
        patientID: UUID,
        name: String = "Ibuprofeno",
        genericName: String? = nil,
        amount: MedicationQuantity = 1,
        frequency: MedicationFrequency = .specificTimes([TimeOfDay(hour: 8)]),
        start: String = "2026-01-01",
        end: String? = nil,
        inventory: MedicationInventory? = nil
    ) -> Medication {
        Medication(
            patientID: patientID, name: name, genericName: genericName,
            dosage: Dosage(amount: amount, unit: .tablets), frequency: frequency,
            startDate: day(start), endDate: end.map(day), inventory: inventory
        )
    }

    /// Runs `body` and returns the `MedVaultError` it throws, recording an issue otherwise.
    static func error(
        _ body: () async throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> MedVaultError? {
        do {
            try await body()
            Issue.record("expected a MedVaultError, nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as MedVaultError {
            return error
        } catch {
            Issue.record("expected a MedVaultError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }
}

extension MedicationFixture {
    /// Registers a patient and creates a medication with one schedule in `zone`.
    func medicationWithSchedule(
        _ times: [TimeOfDay],
        days: Set<Weekday> = [],
        zone: TimeZone,
        medication: (UUID) -> Medication = { MT.medication(patientID: $0) }
    ) async throws -> (patientID: UUID, medication: Medication) {
        let patientID = try await registerPatient()
        let stored = try await store.create(medication(patientID))
        _ = try await store.schedules.create(MedicationSchedule(
            medicationID: stored.id, times: times, daysOfWeek: days, timeZoneIdentifier: zone.identifier
        ))
        return (patientID, stored)
    }
}
