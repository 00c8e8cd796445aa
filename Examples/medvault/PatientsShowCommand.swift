import ArgumentParser
import Foundation
import MedVault

/// `medvault patients show <vault> <id>`: a patient's fields and clinical history.
struct PatientsShowCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a patient's details and history (sessions newest first, with diagnoses).",
        discussion: """
            The identifier may be whole or its first 8 characters, as `patients list` \
            prints it. Times are shown in the local time zone.

            Example:
              medvault patients show ./clinic 3f2a9c1e

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Argument(help: ArgumentHelp("The patient's identifier, or its first 8 characters.", valueName: "id"))
    var id: String

    func run() async throws {
        try await reportingFailures {
            let (patient, history) = try await withOpenVault { opened in
                let patient = try await opened.patients.get(idOrPrefix: id)
                return (patient, try await opened.sessions.fullHistory(of: patient.id))
            }
            for line in Self.lines(patient: patient, history: history) {
                Output.line(line)
            }
        }
    }

    /// The report: the patient's fields, then the history. Every stored text is escaped
    /// (``TextSafety/escaped(_:)``): one line per field, whatever the vault holds.
    static func lines(patient: Patient, history: [SessionHistoryEntry]) -> [String] {
        let safe = TextSafety.escaped
        var fields: [(String, String)] = [
            ("Patient", patient.id.uuidString.lowercased()),
            ("Name", safe(patient.fullName)),
            ("Birth date", patient.dateOfBirth.iso8601),
        ]
        let optional: [(String, String?)] = [
            ("Sex", patient.biologicalSex?.rawValue), ("National ID", patient.nationalId),
            ("Email", patient.email), ("Phone", patient.phoneNumber), ("Address", patient.address),
        ]
        fields += optional.compactMap { label, value in value.map { (label, safe($0)) } }
        fields.append(("Status", PatientTable.status(of: patient)))
        fields.append(("Created", PatientTable.dayAndTime(patient.createdAt)))
        var lines = Output.table(fields)
        lines.append("")
        guard !history.isEmpty else {
            lines.append("History: no sessions.")
            return lines
        }
        let noun = history.count == 1 ? "session" : "sessions"
        lines.append("History: \(history.count) \(noun), newest first")
        for entry in history {
            let session = entry.session
            lines.append("  " + [PatientTable.dayAndTime(session.date), safe(session.type.rawValue),
                                 "\(session.durationMinutes) min", safe(session.status.rawValue)].joined(separator: "  "))
            if let complaint = session.chiefComplaint {
                lines.append("      Chief complaint: \(safe(complaint))")
            }
            for diagnosis in entry.diagnoses {
                let detail = [diagnosis.diagnosisType.rawValue, diagnosis.severity?.rawValue].compactMap { $0.map(safe) }
                lines.append("      \(safe(diagnosis.snapshot.code))  \(safe(diagnosis.snapshot.title))  (\(detail.joined(separator: ", ")))")
            }
            if entry.signature != nil {
                lines += SessionRecordLines.signing(entry, indent: "      ")
            }
        }
        return lines
    }
}
