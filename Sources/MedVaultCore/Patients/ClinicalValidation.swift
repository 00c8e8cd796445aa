import Foundation

/// Field rules shared by the clinical-record values.
///
/// Every rule reports the offending field's *name* and a fixed reason; no rule ever
/// puts the value it checked into an error.
enum ClinicalValidation {
    /// The longest name (first name, last name, professional's full name) accepted.
    static let maximumNameLength = 200
    /// The longest short free text (national id, licence number, specialty…) accepted.
    static let maximumShortTextLength = 200
    /// The longest address accepted.
    static let maximumAddressLength = 1_000
    /// The longest long free text (notes, plans, clinical notes) accepted.
    static let maximumLongTextLength = 200_000
    /// The longest raw value of an extensible category accepted.
    static let maximumCategoryLength = 64

    /// Whether `text` has more than `maximum` characters. A character is at least one
    /// UTF-8 byte, so a text of at most `maximum` bytes is never counted (counting
    /// characters breaks the whole text into grapheme clusters).
    static func isLonger(_ text: some StringProtocol, than maximum: Int) -> Bool {
        text.utf8.count > maximum && text.count > maximum
    }

    /// Whether `text` has nothing but white space.
    static func isBlank(_ text: String) -> Bool {
        text.allSatisfy { $0.isWhitespace || $0.isNewline }
    }

    /// `text`, or `nil` when it is absent or blank: blank optional fields are stored as absent.
    static func normalized(_ text: String?) -> String? {
        guard let text, !isBlank(text) else { return nil }
        return text
    }

    /// Appends an error when a required text is blank, longer than `maximum`, or holds
    /// characters ``TextSafety`` refuses (in a single line, or in a note when `multiline`).
    static func checkRequired(
        _ text: String, field: String, maximum: Int, multiline: Bool = false, into errors: inout [MedVaultError]
    ) {
        if isBlank(text) {
            errors.append(.validation(field, "must not be blank"))
        } else if isLonger(text, than: maximum) {
            errors.append(.validation(field, "is too long"))
        } else {
            checkCharacters(text, field: field, multiline: multiline, into: &errors)
        }
    }

    /// Appends an error when an optional text is longer than `maximum` or holds
    /// characters ``TextSafety`` refuses.
    static func checkOptional(
        _ text: String?, field: String, maximum: Int, multiline: Bool = false, into errors: inout [MedVaultError]
    ) {
        guard let text else { return }
        if isLonger(text, than: maximum) {
            errors.append(.validation(field, "is too long"))
        } else {
            checkCharacters(text, field: field, multiline: multiline, into: &errors)
        }
    }

    /// Appends an error when `text` holds a control or bidi formatting character
    /// (single line), or a control character other than newline, CR and tab (note).
    static func checkCharacters(
        _ text: String?, field: String, multiline: Bool = false, into errors: inout [MedVaultError]
    ) {
        guard let text else { return }
        if multiline {
            if TextSafety.containsRefused(text, multiline: true) {
                errors.append(.validation(field, "must not contain control characters other than newlines and tabs"))
            }
        } else if TextSafety.containsRefused(text, multiline: false) {
            errors.append(.validation(field, "must not contain control characters, line breaks, bidirectional formatting or invisible characters"))
        }
    }

    /// Appends an error when a category's raw value is blank, too long or holds
    /// characters refused in a single line.
    static func checkCategory(_ rawValue: String?, field: String, into errors: inout [MedVaultError]) {
        guard let rawValue else { return }
        if isBlank(rawValue) {
            errors.append(.validation(field, "must not be blank"))
        } else if isLonger(rawValue, than: maximumCategoryLength) {
            errors.append(.validation(field, "is too long"))
        } else {
            checkCharacters(rawValue, field: field, into: &errors)
        }
    }

    /// Appends an error when `email` is present but not of the form `local@domain.tld`.
    ///
    /// The check is deliberately syntactic and loose (RFC 5322 allows far more than
    /// practice apps ever see): one `@`, a non-empty local part, a domain with a dot
    /// between non-empty labels, no white space or control characters, at most 254
    /// characters.
    static func checkEmail(_ email: String?, field: String, into errors: inout [MedVaultError]) {
        guard let email else { return }
        if !isEmail(email) {
            errors.append(.validation(field, "is not a valid email address"))
        }
    }

    static func isEmail(_ email: String) -> Bool {
        guard !isLonger(email, than: 254),
              email.unicodeScalars.allSatisfy({ !CharacterSet.whitespacesAndNewlines.contains($0)
                  && !CharacterSet.controlCharacters.contains($0) && !TextSafety.isRefusedInLine($0) && !TextSafety.isJoiner($0) })
        else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !isLonger(parts[0], than: 64) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }
    }

    /// Appends an error when `phone` is present but not a phone number: digits with
    /// optional `+`, spaces, `-`, `.`, `(`, `)`; 3 to 20 digits; at most 32 characters.
    static func checkPhone(_ phone: String?, field: String, into errors: inout [MedVaultError]) {
        guard let phone else { return }
        let allowed = Set("0123456789+-. ()")
        let digits = phone.filter(\.isASCII).filter(\.isNumber).count
        let plusOnlyFirst = !phone.dropFirst().contains("+")
        if isLonger(phone, than: 32) || !phone.allSatisfy({ allowed.contains($0) }) || !(3...20).contains(digits)
            || !plusOnlyFirst
        {
            errors.append(.validation(field, "is not a valid phone number"))
        }
    }

    /// Throws the first of `errors`, if any.
    static func throwFirst(_ errors: [MedVaultError]) throws {
        if let first = errors.first { throw first }
    }
}
