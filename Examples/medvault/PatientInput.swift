import Foundation
import MedVault

/// A new patient read from JSON (`medvault patients add --json FILE|-`), so that names,
/// national id, email and phone never appear in arguments (visible in `ps` and the
/// shell history).
///
/// The document is one object; `firstName`, `lastName` and `dateOfBirth` are required,
/// the other keys optional, every value a string (or `null` for an optional one):
///
/// ```json
/// {
///   "firstName": "José",
///   "lastName": "García Núñez",
///   "dateOfBirth": "1984-03-07",
///   "biologicalSex": "male",
///   "nationalId": "12345678Z",
///   "email": "jose@example.org",
///   "phoneNumber": "+34 612 345 678",
///   "address": "Calle Mayor 1, Madrid"
/// }
/// ```
///
/// Errors name the key, never its value: malformed JSON, a key not listed above, a
/// value that is not a string, a missing required key.
enum PatientInput {
    /// The keys a document may have.
    static let requiredKeys = ["firstName", "lastName", "dateOfBirth"]
    static let optionalKeys = ["biologicalSex", "nationalId", "email", "phoneNumber", "address"]

    /// The patient described by `data`, not yet validated by the library's rules.
    ///
    /// - Throws: ``CLIError`` with status ``ExitCodes/invalidInput``.
    static func patient(from data: Data) throws -> Patient {
        let fields = try JSONInput.object(data, of: "the patient", keys: requiredKeys + optionalKeys)
        func string(_ key: String, required: Bool) throws -> String? {
            switch fields[key] {
            case nil, is NSNull:
                if required { throw invalid("\(key): is required in the JSON input") }
                return nil
            case let text as String:
                return text
            default:
                throw invalid("\(key): must be a JSON string")
            }
        }
        let first = try string("firstName", required: true) ?? ""
        let last = try string("lastName", required: true) ?? ""
        let born = try string("dateOfBirth", required: true) ?? ""
        let dateOfBirth: CalendarDate
        do {
            dateOfBirth = try CalendarDate(iso8601: born)
        } catch {
            throw MedVaultError.validation("dateOfBirth", "is not a date in the form YYYY-MM-DD")
        }
        return Patient(firstName: first, lastName: last, dateOfBirth: dateOfBirth,
                       biologicalSex: try string("biologicalSex", required: false).map(BiologicalSex.init(rawValue:)),
                       nationalId: try string("nationalId", required: false),
                       email: try string("email", required: false),
                       phoneNumber: try string("phoneNumber", required: false),
                       address: try string("address", required: false))
    }

    private static func invalid(_ message: String) -> CLIError {
        JSONInput.invalid(message)
    }
}
