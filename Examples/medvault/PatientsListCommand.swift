import ArgumentParser
import Foundation
import MedVault

/// `medvault patients list <vault> [--inactive|--all] [--limit N]`.
struct PatientsListCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List patients by last name: active ones, or --inactive, or --all.",
        discussion: """
            Prints a table: identifier (first 8 characters), last name, first name, birth \
            date and status (active, or inactive since the deactivation date).

            Example:
              medvault patients list ./clinic --all --limit 20

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments
    @OptionGroup var options: PatientFilterOptions

    func run() async throws {
        try await reportingFailures {
            let (page, total) = try await withOpenVault { opened in
                (try await opened.patients.list(filter: options.filter, after: nil, limit: options.limit),
                 try await opened.patients.count(filter: options.filter))
            }
            for line in PatientTable.lines(page.patients, emptyMessage: "No \(PatientTable.noun(options.filter)).") {
                Output.line(line)
            }
            if total > page.patients.count {
                Output.line("… \(total - page.patients.count) more; use --limit \(total) to see them all.")
            }
        }
    }
}

/// `medvault patients search <vault> <query>`.
struct PatientsSearchCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find patients by name, national id, email or phone.",
        discussion: """
            Matching ignores case and accents and matches the start of words: "jose" finds \
            "José", "gar nu" finds "García Núñez". Searches active patients unless \
            --inactive or --all is given.

            Example:
              medvault patients search ./clinic jose

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Argument(help: "The words to look for.")
    var query: String

    @OptionGroup var options: PatientFilterOptions

    func run() async throws {
        try await reportingFailures {
            let found = try await withOpenVault { opened in
                try await opened.patients.search(query, filter: options.filter, limit: options.limit)
            }
            for line in PatientTable.lines(found, emptyMessage: "No matching \(PatientTable.noun(options.filter)).") {
                Output.line(line)
            }
        }
    }
}
