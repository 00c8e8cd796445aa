import ArgumentParser
import Foundation
import MedVault
import MedVaultCore

/// `medvault patients add <vault> --first-name … --last-name … --birth-date YYYY-MM-DD`.
struct PatientsAddCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a patient and print the new patient's identifier.",
        discussion: """
            The fields are checked before the password is asked for: a blank name or a \
            birth date that is not a past YYYY-MM-DD date is refused with status 7 and the \
            field's name.

            Example:
              medvault patients add ./clinic --first-name José --last-name 'García Núñez' \\
                --birth-date 1984-03-07 --email jose@example.org

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Option(help: "Given name.")
    var firstName: String

    @Option(help: "Family name(s).")
    var lastName: String

    @Option(help: ArgumentHelp("Date of birth, as YYYY-MM-DD.", valueName: "YYYY-MM-DD"))
    var birthDate: String

    @Option(help: "Contact email.")
    var email: String?

    @Option(help: "Contact phone number.")
    var phone: String?

    @Option(help: "National identity document number.")
    var nationalId: String?

    func run() async throws {
        try await reportingFailures {
            let patient = try makePatient()
            let stored = try await withOpenVault { opened in try await opened.patients.create(patient) }
            Output.line(stored.id.uuidString.lowercased())
        }
    }

    /// The new patient, checked by the library's rules.
    func makePatient() throws -> Patient {
        let dateOfBirth: CalendarDate
        do {
            dateOfBirth = try CalendarDate(iso8601: birthDate)
        } catch {
            throw MedVaultError.validation("dateOfBirth", "is not a date in the form YYYY-MM-DD")
        }
        let patient = Patient(firstName: firstName, lastName: lastName, dateOfBirth: dateOfBirth,
                              nationalId: nationalId, email: email, phoneNumber: phone)
        return try patient.validated(at: Date())
    }
}
