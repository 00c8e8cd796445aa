import ArgumentParser
import Foundation
import MedVault
import MedVaultICD11

/// `medvault diagnoses …`: ICD-11 diagnoses of sessions.
struct DiagnosesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnoses",
        abstract: "Add ICD-11 diagnoses to clinical sessions.",
        subcommands: [DiagnosesAddCommand.self]
    )
}

/// `medvault diagnoses add <vault> <session-id> --code 6A70`.
struct DiagnosesAddCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Diagnose a session with an ICD-11 code; print the diagnosis's identifier.",
        discussion: """
            The code is looked up in the ICD-11 catalogue and its snapshot (code, title, \
            Spanish title, URI, release) is frozen into the diagnosis. Every category fetched \
            is kept in the vault's offline cache: without network, a code used before is \
            still found there; an unseen one fails with "offline" (status 8).

            \(ICDOptions.environmentHelp)

            Example:
              medvault diagnoses add ./clinic 0c9e4a52-… --code 6A70 --type principal --severity moderate

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Argument(help: ArgumentHelp("The session's identifier (whole).", valueName: "session-id"))
    var sessionID: String

    @Option(help: ArgumentHelp("The ICD-11 MMS code, for example 6A70.", valueName: "code"))
    var code: String

    @Option(help: ArgumentHelp("principal, secondary or differential (default principal).", valueName: "type"))
    var type = "principal"

    @Option(help: ArgumentHelp("mild, moderate or severe.", valueName: "severity"))
    var severity: String?

    @OptionGroup var icd: ICDOptions

    func validate() throws {
        if UUID(uuidString: sessionID) == nil { throw ValidationError("the session id must be a whole identifier (UUID)") }
        if !["principal", "secondary", "differential"].contains(type) {
            throw ValidationError("--type must be principal, secondary or differential")
        }
        if let severity, !["mild", "moderate", "severe"].contains(severity) {
            throw ValidationError("--severity must be mild, moderate or severe")
        }
    }

    func run() async throws {
        try await reportingFailures {
            guard let session = UUID(uuidString: sessionID) else { return }
            let client = try icd.client()
            let stored = try await withOpenVault { opened in
                let catalog = ICD11CachedCatalog(remote: client, cache: opened.icd11Cache)
                return try await opened.diagnoses.create(
                    sessionID: session, code: code, catalog: catalog, language: icd.language,
                    diagnosisType: DiagnosisType(rawValue: type), severity: severity.map(DiagnosisSeverity.init(rawValue:)))
            }
            Output.line(stored.id.uuidString.lowercased())
            Output.line(stored.snapshot.code + "  " + TextSafety.escaped(stored.snapshot.title)
                        + "  (ICD-11 " + stored.snapshot.releaseVersion + ")")
        }
    }
}
