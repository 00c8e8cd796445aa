import ArgumentParser
import Foundation
import MedVault

/// `medvault professional …`: the vault owner's profile, which `sessions sign` and
/// `sessions amend` sign as.
struct ProfessionalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "professional",
        abstract: "Set or show the vault's professional, who signs and amends sessions.",
        discussion: """
            A vault has one professional. `set` creates the profile or changes the given \
            fields of the existing one; `show` prints it.

            Example:
              medvault professional set ./clinic --full-name 'Ana Ruiz' --license M-28-12345 --specialty 'Psicología clínica'
              medvault professional show ./clinic

            \(HelpText.exitStatus)
            """,
        subcommands: [ProfessionalSetCommand.self, ProfessionalShowCommand.self]
    )
}

/// `medvault professional set <vault> …`: creates or updates the profile.
struct ProfessionalSetCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Create the vault's professional, or change the fields given.",
        discussion: """
            Creating needs --full-name, --license and --specialty; an update changes only \
            the fields given. The values are checked before the password is asked for: \
            text fields refuse control, bidi and invisible characters, --email must be an \
            address, --language a BCP 47 tag; a refusal names the option (status 7).

            Example:
              medvault professional set ./clinic --full-name 'Ana Ruiz' --license M-28-12345 --specialty 'Psicología clínica'

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Option(help: "Full name, as it appears on signatures.")
    var fullName: String?

    @Option(help: ArgumentHelp("Professional license number.", valueName: "number"))
    var license: String?

    @Option(help: "Specialty.")
    var specialty: String?

    @Option(help: "Contact email (an empty value removes it).")
    var email: String?

    @Option(help: ArgumentHelp("Preferred language, a BCP 47 tag (default for a new profile: es).", valueName: "tag"))
    var language: String?

    func run() async throws {
        try await reportingFailures {
            guard [fullName, license, specialty, email, language].contains(where: { $0 != nil }) else {
                throw CLIError(status: ExitCodes.invalidInput, message: "nothing to set: give at least one of --full-name, --license, --specialty, --email, --language")
            }
            // The values given are checked by the library's rules before the password is
            // asked for; the fields not given stand in as valid placeholders.
            let draft = Professional(fullName: fullName ?? "-", licenseNumber: license ?? "-", specialty: specialty ?? "-",
                                     email: email.flatMap { $0.isEmpty ? nil : $0 }, preferredLanguage: language ?? "es")
            if let invalid = draft.validationErrors().first { throw Self.naming(invalid) }
            let saved = try await withOpenVault { opened in
                var profile: Professional
                if let existing = try await opened.professional.get() {
                    profile = existing
                } else {
                    guard let fullName, let license, let specialty else {
                        throw MedVaultError(.invalidArgument,
                                            reason: "the vault has no professional yet: --full-name, --license and --specialty are required")
                    }
                    profile = Professional(fullName: fullName, licenseNumber: license, specialty: specialty)
                }
                if let fullName { profile.fullName = fullName }
                if let license { profile.licenseNumber = license }
                if let specialty { profile.specialty = specialty }
                if let email { profile.email = email.isEmpty ? nil : email }
                if let language { profile.preferredLanguage = language }
                return try await opened.professional.save(profile)
            }
            Output.line(saved.version == 1 ? "Professional created." : "Professional updated (version \(saved.version)).")
            for line in ProfessionalShowCommand.lines(saved) { Output.line(line) }
        }
    }

    /// The option each of the library's field names comes from.
    static let options = ["fullName": "--full-name", "licenseNumber": "--license", "specialty": "--specialty",
                          "email": "--email", "preferredLanguage": "--language"]

    /// A validation error named after the option that gave the value (status 7).
    static func naming(_ error: MedVaultError) -> CLIError {
        let option = error.field.flatMap { options[$0] } ?? error.field ?? "input"
        return CLIError(status: ExitCodes.invalidInput, message: "\(option): \(error.reason)")
    }
}

/// `medvault professional show <vault>`: the profile, or a note that there is none.
struct ProfessionalShowCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the vault's professional.",
        discussion: """
            Exits with status \(ExitCodes.notFound) when the vault has no professional yet.

            Example:
              medvault professional show ./clinic

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    func run() async throws {
        try await reportingFailures {
            let profile = try await withOpenVault { opened in try await opened.professional.get() }
            guard let profile else {
                throw MedVaultError(.notFound, reason: "the vault has no professional yet; set one with `medvault professional set`")
            }
            for line in Self.lines(profile) { Output.line(line) }
        }
    }

    /// The profile's fields, each stored text escaped.
    static func lines(_ profile: Professional) -> [String] {
        let safe = TextSafety.escaped
        var fields: [(String, String)] = [
            ("Professional", profile.id.uuidString.lowercased()),
            ("Name", safe(profile.fullName)),
            ("License", safe(profile.licenseNumber)),
            ("Specialty", safe(profile.specialty)),
        ]
        if let email = profile.email { fields.append(("Email", safe(email))) }
        fields.append(("Language", safe(profile.preferredLanguage)))
        return Output.table(fields)
    }
}
