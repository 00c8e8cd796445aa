import Foundation

/// The one patient record of a single-user app (a medication-adherence app on the
/// user's own phone): the owner of the medication plan, without clinical demographics.
///
/// Medications, schedules and dose logs belong to a patient (SQL enforces it with a
/// foreign key), and a clinical ``Patient`` needs names and a date of birth. A
/// single-user app asks its user for none of them: it calls
/// ``PatientRepository/selfProfile(firstName:lastName:dateOfBirth:)`` once at launch
/// and uses the returned identifier as every medication's `patientID`.
///
/// The self profile is an ordinary patient under a well-known identifier
/// (``patientID``), so everything that works for patients (export, import, backup,
/// both stores, units of work) works for it unchanged, with no schema change. Its
/// demographics are placeholders unless the app gives them: names "Self" / "Profile"
/// and the date of birth ``undisclosedDateOfBirth``. A reader that shows or exports
/// demographics checks ``Patient/isSelfProfile`` and treats them as not collected.
/// Why not an optional date of birth instead: docs/medications.md, "Single-user apps".
///
/// For example:
///
/// ```swift
/// let me = try await vault.patients.selfProfile()
/// let plan = try await vault.medications.create(Medication(
///     patientID: me.id, name: "Metformina", dosage: Dosage(amount: 1, unit: .tablets),
///     frequency: .timesPerDay(2), startDate: today))
/// ```
public enum SelfProfile {
    /// The identifier of every vault's self profile: `5E1F0000-0000-4000-8000-000000000001`.
    public static let patientID = UUID(uuid: (0x5E, 0x1F, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00,
                                              0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01))

    /// The placeholder date of birth of a self profile created without one: 1900-01-01.
    public static let undisclosedDateOfBirth = CalendarDate(dayNumber: -25_567)

    /// The self profile to create when none exists.
    static func newProfile(firstName: String, lastName: String, dateOfBirth: CalendarDate?) -> Patient {
        Patient(id: patientID, firstName: firstName, lastName: lastName,
                dateOfBirth: dateOfBirth ?? undisclosedDateOfBirth)
    }
}

extension Patient {
    /// Whether this is a vault's ``SelfProfile``, whose demographics were not collected
    /// unless the app set them.
    public var isSelfProfile: Bool { id == SelfProfile.patientID }
}

extension PatientRepository {
    /// The vault's ``SelfProfile``, created on the first call.
    ///
    /// Idempotent and safe under concurrency: a later call, or a second process racing
    /// the first, returns the stored profile unchanged (the arguments only seed a new
    /// one; change it with ``update(_:)``).
    ///
    /// - Parameters:
    ///   - firstName: The name to show, if the app has one; "Self" by default.
    ///   - lastName: "Profile" by default.
    ///   - dateOfBirth: The user's date of birth, if the app asks for it;
    ///     ``SelfProfile/undisclosedDateOfBirth`` by default.
    /// - Returns: The stored self profile.
    /// - Throws: ``MedVaultError/Code/validation`` for invalid names or a future date,
    ///   and storage errors.
    @discardableResult
    public func selfProfile(
        firstName: String = "Self", lastName: String = "Profile", dateOfBirth: CalendarDate? = nil
    ) async throws -> Patient {
        do {
            return try await get(SelfProfile.patientID)
        } catch let error as MedVaultError where error.code == .notFound {
            // None yet: create it below.
        }
        do {
            return try await create(SelfProfile.newProfile(firstName: firstName, lastName: lastName,
                                                           dateOfBirth: dateOfBirth))
        } catch let error as MedVaultError where error.code == .duplicate {
            return try await get(SelfProfile.patientID)  // another task or process created it first
        }
    }
}
