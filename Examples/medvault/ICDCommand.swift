import ArgumentParser
import Foundation
import MedVault
import MedVaultICD11

/// `medvault icd …`: the ICD-11 catalogue.
struct ICDCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "icd",
        abstract: "Search the ICD-11 MMS catalogue (the WHO ICD-API or a local container).",
        discussion: """
            \(ICDOptions.environmentHelp)

            Example:
              MEDVAULT_ICD_CLIENT_ID=… MEDVAULT_ICD_CLIENT_SECRET=… medvault icd search "depresión" --lang es
              medvault icd search "anxiety" --lang en --base-url http://localhost:8382
            """,
        subcommands: [ICDSearchCommand.self]
    )
}

/// `medvault icd search <text> [--lang es] [--limit 10]`.
struct ICDSearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Print the ICD-11 categories matching a text: code, then title.",
        discussion: """
            One line per category, best first: the MMS code, two spaces, the title in the \
            language asked for (search highlights removed, control characters escaped). \
            Failures: status 8 for offline, timeout, rate limited (with the wait), server \
            error or an unusable answer; 7 for a refused argument; 64 for usage.

            \(ICDOptions.environmentHelp)
            """
    )

    @Argument(help: "What to search for, for example depresión.")
    var text: String

    @OptionGroup var icd: ICDOptions

    @Option(help: ArgumentHelp("Show at most this many categories (1–100).", valueName: "n"))
    var limit = 10

    func validate() throws {
        if !(1...100).contains(limit) { throw ValidationError("--limit must be between 1 and 100") }
    }

    func run() async throws {
        try await ICDFailures.reporting {
            let result = try await icd.client().search(text, language: icd.language, limit: limit)
            for entity in result.entities {
                Output.line(entity.code + "  " + TextSafety.escaped(entity.title(in: icd.language) ?? ""))
            }
            if result.entities.isEmpty { Output.standardError("medvault: no ICD-11 category matches\n") }
        }
    }
}

/// The one-line failure report of the ICD commands that open no vault.
enum ICDFailures {
    static func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ExitCode {
            throw error
        } catch let error as CLIError {
            Output.error(error.message)
            throw ExitCode(error.status)
        } catch let error as MedVaultError {
            Output.error(message(for: error))
            throw ExitCode(ExitCodes.status(for: error.code))
        } catch {
            Output.error("unexpected failure (\(type(of: error)))")
            throw ExitCode(ExitCodes.failure)
        }
    }

    /// The line for a catalogue error: its reason, and the wait of a `rateLimited`.
    static func message(for error: MedVaultError) -> String {
        var text = Output.message(for: error, path: nil)
        if error.code == .rateLimited, let wait = error.retryAfter {
            text += "; try again in \(wait.components.seconds) s"
        }
        return text
    }
}
