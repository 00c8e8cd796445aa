import ArgumentParser
import Foundation
import MedVault

/// `medvault patients add <vault> --first-name … --last-name … --birth-date YYYY-MM-DD`.
struct PatientsAddCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a patient and print the new patient's identifier.",
        discussion: """
            Prefer --json: the patient's fields are then read from a JSON file, or from \
            standard input with `--json -`, instead of arguments, which other users see in \
            `ps` and which stay in the shell history. The JSON document is one object: \
            "firstName", "lastName", "dateOfBirth" (YYYY-MM-DD) are required; \
            "biologicalSex", "nationalId", "email", "phoneNumber", "address" are optional; \
            every value is a string. With `--json -` give the password with \
            --password-stdin (its first line; the JSON follows) or --password-file.

            The fields are checked before the password is asked for (with `--json -` and \
            --password-stdin, right after it is read): malformed JSON, an unknown key, a \
            missing required field, a blank name or a birth date that is not a past \
            YYYY-MM-DD date is refused with status 7 and the field's name, never its value.

            Example:
              medvault patients add ./clinic --json patient.json
              { echo "$PASSWORD"; cat patient.json; } | medvault patients add ./clinic --json - --password-stdin
              medvault patients add ./clinic --first-name José --last-name 'García Núñez' \\
                --birth-date 1984-03-07 --email jose@example.org

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Option(help: ArgumentHelp("Read the patient from this JSON file, or `-` for standard input.", valueName: "file"))
    var json: String?

    @Option(help: "Given name.")
    var firstName: String?

    @Option(help: "Family name(s).")
    var lastName: String?

    @Option(help: ArgumentHelp("Date of birth, as YYYY-MM-DD.", valueName: "YYYY-MM-DD"))
    var birthDate: String?

    @Option(help: "Contact email.")
    var email: String?

    @Option(help: "Contact phone number.")
    var phone: String?

    @Option(help: "National identity document number.")
    var nationalId: String?

    func validate() throws {
        let fieldOptions: [String?] = [firstName, lastName, birthDate, email, phone, nationalId]
        if json != nil {
            if fieldOptions.contains(where: { $0 != nil }) {
                throw ValidationError("--json cannot be combined with the field options")
            }
            try checkPasswordSource(forJSON: json)
        } else if firstName == nil || lastName == nil || birthDate == nil {
            throw ValidationError("give --json FILE, or --first-name, --last-name and --birth-date")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let reader = makeReader()
            let password = try passwordPrecedingJSON(json, reader: reader)
            let patient = try makePatient()
            let stored = try await withOpenVault(reader: reader, password: password) { opened in
                try await opened.patients.create(patient)
            }
            Output.line(stored.id.uuidString.lowercased())
        }
    }

    /// The new patient, from the JSON input or the options, checked by the library's rules.
    func makePatient() throws -> Patient {
        if let json {
            return try PatientInput.patient(from: JSONInput.read(json)).validated(at: Date())
        }
        let dateOfBirth: CalendarDate
        do {
            dateOfBirth = try CalendarDate(iso8601: birthDate ?? "")
        } catch {
            throw MedVaultError.validation("dateOfBirth", "is not a date in the form YYYY-MM-DD")
        }
        let patient = Patient(firstName: firstName ?? "", lastName: lastName ?? "", dateOfBirth: dateOfBirth,
                              nationalId: nationalId, email: email, phoneNumber: phone)
        return try patient.validated(at: Date())
    }
}
