import ArgumentParser
import Foundation
import MedVault

/// `medvault backup <vault> <destination>`: a verified copy of a vault that may be in use.
struct BackupCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a verified, encrypted copy of the vault into a new folder.",
        discussion: """
            The vault may be in use by other processes meanwhile: the copy is one \
            consistent snapshot of the database, with a copy of the keyring that opens it. \
            The destination must not exist (or be an empty folder); it opens as a vault with \
            the password and recovery key in force when the backup began. The copy is checked \
            (integrity, schema, row counts) before it is renamed into place; an interrupted \
            backup leaves no destination, at most a hidden temporary folder beside it.

            Example:
              medvault backup ./clinic ./backups/clinic-2026-11-23

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    @Argument(help: ArgumentHelp("A new folder (or an empty one) for the backup.", valueName: "destination"))
    var destination: String

    @Flag(help: "Encrypt the copy under a new random database key instead of the vault's current one.")
    var newDatabaseKey = false

    func run() async throws {
        try await reportingFailures {
            let report = try await withOpenVault { opened in
                let bar = ProgressBar()
                do {
                    let report = try await opened.backup(to: URL(fileURLWithPath: destination),
                                                         options: Vault.BackupOptions(newDatabaseKey: newDatabaseKey)) { progress in
                        if progress.phase == .copying { bar.update(fraction: progress.fractionCopied, label: "Copying") }
                    }
                    bar.finish()
                    return report
                } catch {
                    bar.finish()
                    throw error
                }
            }
            Output.line("Backed up to \(destination): \(Self.summary(report)).")
        }
    }

    /// "40 patients, 120 sessions, …, 1.2 MB" — counts and size, never content.
    static func summary(_ report: BackupReport) -> String {
        let names = [("patient", "patients"), ("clinical_session", "sessions"), ("diagnosis", "diagnoses"),
                     ("attachment", "attachments"), ("medication", "medications"), ("dose_log", "dose logs")]
        let counts = names.map { table, label in "\(report.recordCounts[table] ?? 0) \(label)" }
        return (counts + ["schema \(report.schemaVersion)", Output.byteCount(report.databaseByteCount)])
            .joined(separator: ", ")
    }
}
