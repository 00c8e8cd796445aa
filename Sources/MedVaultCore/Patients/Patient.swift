import Foundation

/// A patient: the subject of a clinical record (HU-02, HU-03).
///
/// Patients are never physically deleted (medico-legal record): deactivation sets
/// ``deletedAt`` and reactivation clears it.
///
/// For example:
///
/// ```swift
/// let patient = Patient(firstName: "José", lastName: "García",
///                       dateOfBirth: try CalendarDate(iso8601: "1984-03-07"))
/// let stored = try await patients.create(patient)
/// ```
public struct Patient: Sendable, Hashable, Codable, Identifiable {
    /// Client-generated identifier.
    public var id: UUID
    /// Given name. Required.
    public var firstName: String
    /// Family name(s). Required.
    public var lastName: String
    /// Date of birth: a calendar date, independent of any time zone. Required.
    public var dateOfBirth: CalendarDate
    /// Biological sex, if recorded.
    public var biologicalSex: BiologicalSex?
    /// National identity document number. Critical sensitivity.
    public var nationalId: String?
    /// Contact email. Medium sensitivity.
    public var email: String?
    /// Contact phone number. Medium sensitivity.
    public var phoneNumber: String?
    /// Postal address.
    public var address: String?
    /// When the patient was deactivated; `nil` for an active patient. Set only by
    /// `deactivate`/`reactivate`: `update` keeps the stored value.
    public var deletedAt: Date?
    /// When the record was first stored (set by the repository).
    public var createdAt: Date
    /// When the record was last stored (set by the repository).
    public var updatedAt: Date
    /// The stored version: 1 after creation, +1 on each change (set by the repository).
    public var version: Int64

    /// Creates an unsaved patient; the repository fills timestamps and version.
    public init(
        id: UUID = UUID(), firstName: String, lastName: String, dateOfBirth: CalendarDate,
        biologicalSex: BiologicalSex? = nil, nationalId: String? = nil, email: String? = nil,
        phoneNumber: String? = nil, address: String? = nil
    ) {
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
        self.dateOfBirth = dateOfBirth
        self.biologicalSex = biologicalSex
        self.nationalId = nationalId
        self.email = email
        self.phoneNumber = phoneNumber
        self.address = address
        self.deletedAt = nil
        self.createdAt = Date(millisecondsSince1970: 0)
        self.updatedAt = Date(millisecondsSince1970: 0)
        self.version = 0
    }

    /// Whether the patient is active (not deactivated).
    public var isActive: Bool { deletedAt == nil }

    /// "First Last".
    public var fullName: String { "\(firstName) \(lastName)" }

    // MARK: - Order

    /// The key patients are sorted by: the folded tokens of the last name, a U+0001
    /// separator, then the folded tokens of the first name.
    ///
    /// Folding is ``SearchText/tokens(of:)``'s (lower case, diacritics removed,
    /// punctuation dropped, tokens joined by one space), so "Álvarez" and "alvarez"
    /// sort together and both backends agree. Keys are compared as UTF-8 bytes; as
    /// U+0001 sorts below every token character, "García, Ana" sorts before
    /// "García López, Ana". See ``PatientCursor``.
    public var sortKey: String {
        Self.sortKey(lastName: lastName, firstName: firstName)
    }

    /// The ``sortKey`` of a patient with these names.
    public static func sortKey(lastName: String, firstName: String) -> String {
        SearchText.tokens(of: lastName).joined(separator: " ") + "\u{1}"
            + SearchText.tokens(of: firstName).joined(separator: " ")
    }

    /// Whether the position (`key`, `id`) comes strictly before (`otherKey`, `otherID`)
    /// in patient order: key by UTF-8 bytes, then id by its bytes.
    public static func ordered(_ key: String, _ id: UUID, before otherKey: String, _ otherID: UUID) -> Bool {
        if key != otherKey {
            return key.utf8.lexicographicallyPrecedes(otherKey.utf8)
        }
        return id.uuidString.utf8.lexicographicallyPrecedes(otherID.uuidString.utf8)
    }

    /// The fields a patient search looks in: names, national id, email and phone.
    public var searchableFields: [String?] {
        [firstName, lastName, nationalId, email, phoneNumber]
    }

    /// The folded tokens (``SearchText/tokens(of:)``) of ``searchableFields``, in field
    /// order, repeats kept: what a patient search matches query tokens against.
    public var searchTokens: [String] {
        searchableFields.compactMap { $0 }.flatMap(SearchText.tokens(of:))
    }

    // MARK: - Validation

    /// The latest acceptable date of birth at `now`: today's date in the earliest time
    /// zone on Earth (UTC+14), so that a baby born "today" anywhere is accepted while
    /// the rule stays independent of the process's time zone.
    public static func latestDateOfBirth(at now: Date) -> CalendarDate {
        let utc = TimeZone(secondsFromGMT: 0) ?? .current
        return CalendarDate(now.addingTimeInterval(14 * 3600), in: utc)
    }

    /// Every validation failure of this value at `now`, in field order (empty when valid).
    ///
    /// - `firstName`, `lastName`: not blank after trimming, at most 200 characters.
    /// - `dateOfBirth`: not in the future (see ``latestDateOfBirth(at:)``).
    /// - `biologicalSex`: a non-blank raw value of at most 64 characters.
    /// - `nationalId`: at most 200 characters.
    /// - `email`: `local@domain.tld` syntax.
    /// - `phoneNumber`: digits with optional `+`, spaces, `-`, `.`, parentheses; 3 to 20 digits.
    /// - `address`: at most 1,000 characters.
    ///
    /// No text field may hold a control character, a line break or a bidirectional
    /// formatting character (``TextSafety/isRefusedInLine(_:)-(String)``). Blank optional fields
    /// are valid: they are stored as `nil`.
    public func validationErrors(at now: Date) -> [MedVaultError] {
        var errors: [MedVaultError] = []
        ClinicalValidation.checkRequired(firstName, field: "firstName",
                                         maximum: ClinicalValidation.maximumNameLength, into: &errors)
        ClinicalValidation.checkRequired(lastName, field: "lastName",
                                         maximum: ClinicalValidation.maximumNameLength, into: &errors)
        if dateOfBirth > Self.latestDateOfBirth(at: now) {
            errors.append(.validation("dateOfBirth", "must not be in the future"))
        }
        ClinicalValidation.checkCategory(biologicalSex?.rawValue, field: "biologicalSex", into: &errors)
        ClinicalValidation.checkOptional(ClinicalValidation.normalized(nationalId), field: "nationalId",
                                         maximum: ClinicalValidation.maximumShortTextLength, into: &errors)
        ClinicalValidation.checkEmail(ClinicalValidation.normalized(email), field: "email", into: &errors)
        ClinicalValidation.checkPhone(ClinicalValidation.normalized(phoneNumber), field: "phoneNumber",
                                      into: &errors)
        ClinicalValidation.checkOptional(ClinicalValidation.normalized(address), field: "address",
                                         maximum: ClinicalValidation.maximumAddressLength, into: &errors)
        return errors
    }

    /// This value as a repository stores it: blank optional fields become `nil`.
    ///
    /// - Throws: The first of ``validationErrors(at:)``.
    public func validated(at now: Date) throws -> Patient {
        try ClinicalValidation.throwFirst(validationErrors(at: now))
        var copy = self
        copy.nationalId = ClinicalValidation.normalized(nationalId)
        copy.email = ClinicalValidation.normalized(email)
        copy.phoneNumber = ClinicalValidation.normalized(phoneNumber)
        copy.address = ClinicalValidation.normalized(address)
        return copy
    }
}
