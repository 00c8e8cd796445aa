import Foundation
import MedVault

/// A new session read from JSON (`medvault sessions add --json FILE|-`): clinical text
/// never appears in arguments (visible in `ps` and the shell history).
///
/// The document is one object; `date` is required (an ISO-8601 instant, with or without
/// milliseconds: `2026-11-20T10:00:00Z`), the other keys optional:
///
/// ```json
/// {
///   "date": "2026-11-20T10:00:00Z",
///   "type": "inPerson",
///   "durationMinutes": 50,
///   "status": "completed",
///   "chiefComplaint": "Insomnio",
///   "notes": "Primera sesión…",
///   "treatmentPlan": "Higiene del sueño"
/// }
/// ```
///
/// Errors name the key, never its value, as for ``PatientInput``.
enum SessionInput {
    static let requiredKeys = ["date"]
    static let optionalKeys = ["type", "durationMinutes", "status", "chiefComplaint", "notes", "treatmentPlan"]

    /// The session for `patientID` described by `data`, not yet validated by the library.
    ///
    /// - Throws: ``CLIError`` with status ``ExitCodes/invalidInput``.
    static func session(for patientID: UUID, from data: Data) throws -> ClinicalSession {
        _ = try JSONInput.object(data, of: "the session", keys: requiredKeys + optionalKeys)
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch let DecodingError.keyNotFound(key, _) {
            throw invalid("\(key.stringValue): is required in the JSON input")
        } catch let DecodingError.typeMismatch(_, context) {
            throw wrongKind(context)
        } catch let DecodingError.valueNotFound(_, context) {
            throw invalid("\(context.codingPath.last?.stringValue ?? "the input"): must not be null")
        } catch {
            throw invalid("the JSON input is not valid JSON")
        }
        var duration = ClinicalSession.defaultDurationMinutes
        if let minutes = document.durationMinutes {
            // Read as a number and checked here: a whole number the library then bounds.
            guard minutes == minutes.rounded(), abs(minutes) <= 1_000_000 else {
                throw invalid("durationMinutes: has a value of the wrong kind (a whole number)")
            }
            duration = Int(minutes)
        }
        guard let date = ISO8601DateFormatter.date(fromInstant: document.date) else {
            throw invalid("date: is not an ISO-8601 instant such as 2026-11-20T10:00:00Z")
        }
        return ClinicalSession(
            patientID: patientID, date: date, type: document.type.map(SessionType.init(rawValue:)) ?? .inPerson,
            durationMinutes: duration,
            status: document.status.map(SessionStatus.init(rawValue:)) ?? .scheduled,
            notes: document.notes, chiefComplaint: document.chiefComplaint, treatmentPlan: document.treatmentPlan)
    }

    /// The document's keys and kinds (JSONDecoder refuses `true` for a number).
    private struct Document: Decodable {
        var date: String
        var type: String?
        var durationMinutes: Double?
        var status: String?
        var chiefComplaint: String?
        var notes: String?
        var treatmentPlan: String?
    }

    private static func wrongKind(_ context: DecodingError.Context) -> CLIError {
        invalid("\(context.codingPath.last?.stringValue ?? "the input"): has a value of the wrong kind "
                + "(durationMinutes is a whole number, the others strings)")
    }

    private static func invalid(_ message: String) -> CLIError {
        JSONInput.invalid(message)
    }
}

extension ISO8601DateFormatter {
    /// An instant with or without fractional seconds, or `nil`.
    static func date(fromInstant text: String) -> Date? {
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
