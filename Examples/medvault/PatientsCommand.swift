import ArgumentParser
import Foundation
import MedVault

/// `medvault patients …`: add, list, search and show patients.
struct PatientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patients",
        abstract: "Add, list, search and show the vault's patients.",
        discussion: """
            Patients are never deleted: a deactivated patient is listed with --inactive, \
            with the date of deactivation. Identifiers may be given whole or as the first \
            8 characters `patients list` shows.

            Example:
              medvault patients add ./clinic --first-name José --last-name 'García Núñez' --birth-date 1984-03-07
              medvault patients list ./clinic
              medvault patients search ./clinic jose
              medvault patients show ./clinic 3f2a9c1e

            \(HelpText.exitStatus)
            """,
        subcommands: [
            PatientsAddCommand.self,
            PatientsListCommand.self,
            PatientsSearchCommand.self,
            PatientsShowCommand.self,
        ]
    )
}

/// The `--inactive` / `--all` choice shared by `patients list` and `patients search`.
struct PatientFilterOptions: ParsableArguments {
    @Flag(help: "Only deactivated patients, with their deactivation date.")
    var inactive = false

    @Flag(help: "Active and deactivated patients.")
    var all = false

    @Option(help: ArgumentHelp("Show at most this many patients (default 50).", valueName: "n"))
    var limit = 50

    func validate() throws {
        if inactive, all {
            throw ValidationError("use either --inactive or --all, not both")
        }
        if limit < 1 {
            throw ValidationError("--limit must be at least 1")
        }
    }

    /// The library filter chosen.
    var filter: PatientFilter {
        if all { return .all }
        return inactive ? .inactive : .active
    }
}
