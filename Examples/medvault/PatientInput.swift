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

    /// The largest document read (a patient is well under a kilobyte).
    static let maximumByteCount = 1 << 20

    /// The patient described by `data`, not yet validated by the library's rules.
    ///
    /// - Throws: ``CLIError`` with status ``ExitCodes/invalidInput``.
    static func patient(from data: Data) throws -> Patient {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw invalid("the JSON input is not valid JSON")
        }
        guard let fields = object as? [String: Any] else {
            throw invalid("the JSON input must be one object with the patient's fields")
        }
        let known = Set(requiredKeys + optionalKeys)
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw invalid("the JSON input has an unknown field \"\(TextSafety.escaped(String(unknown.prefix(64))))\"; "
                          + "known fields: \((requiredKeys + optionalKeys).joined(separator: ", "))")
        }
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

    /// Reads the document: `-` for standard input (what is left of it after the
    /// password line, with `--password-stdin`), otherwise a file path.
    static func read(_ source: String) throws -> Data {
        let handle: FileHandle
        if source == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: source) else {
                let exists = FileManager.default.fileExists(atPath: source)
                throw CLIError(status: exists ? ExitCodes.accessDenied : ExitCodes.notFound,
                               message: "\(source): cannot open the JSON input")
            }
            handle = opened
        }
        defer { if source != "-" { try? handle.close() } }
        var data = Data()
        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 64 * 1024)
            } catch {
                throw CLIError(status: ExitCodes.failure, message: "cannot read the JSON input")
            }
            guard let chunk, !chunk.isEmpty else { break }
            data += chunk
            guard data.count <= maximumByteCount else { throw invalid("the JSON input is larger than 1 MiB") }
        }
        return data
    }

    private static func invalid(_ message: String) -> CLIError {
        CLIError(status: ExitCodes.invalidInput, message: message)
    }
}
