import ArgumentParser
import Foundation
import MedVault

/// `medvault restore <backup> <vault>`: verifies a backup, then puts it in place.
struct RestoreCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Verify a backup and restore it as the vault in a folder.",
        discussion: """
            The backup is copied beside the target and verified with its password (or, with \
            --recovery-key, its recovery key): it must decrypt, pass an integrity check and \
            have a known schema. Only then is it put in place. The target may be a new or \
            empty folder, or — with --replace — a vault's folder that no process has open: \
            that vault is REPLACED (its keyring is shredded, its records are gone). A damaged \
            or foreign backup changes nothing.

            Example:
              medvault restore ./backups/clinic-2026-11-23 ./clinic-restored
              medvault restore ./backups/clinic-2026-11-23 ./clinic --replace

            \(HelpText.exitStatus)
            """
    )

    @Argument(help: ArgumentHelp("The backup's folder (written by `medvault backup`).", valueName: "backup"))
    var backup: String

    @OptionGroup var vault: VaultArguments

    @Flag(help: "Verify the backup with its recovery key instead of its password.")
    var recoveryKey = false

    @Flag(help: "Replace the vault in the target folder (its records are lost) instead of refusing.")
    var replace = false

    func run() async throws {
        try await reportingFailures {
            // Refuse before any secret is read: replacing a vault must be asked for.
            if Vault.exists(at: vault.folder), !replace {
                throw CLIError(status: ExitCodes.invalidInput,
                               message: "\(vault.path): the folder holds a vault; pass --replace to replace it with the backup")
            }
            let reader = makeReader()
            let source = URL(fileURLWithPath: backup)
            let bar = ProgressBar()
            let progress: @Sendable (BackupProgress) -> Void = { step in
                if step.phase == .copying { bar.update(fraction: step.fractionCopied, label: "Copying") }
            }
            let report: BackupReport
            do {
                if recoveryKey {
                    report = try await Vault.restore(from: source, to: vault.folder, recoveryKey: try reader.recoveryKey(),
                                                     options: vault.options, progress: progress)
                } else {
                    report = try await Vault.restore(from: source, to: vault.folder, password: try reader.password(),
                                                     options: vault.options, progress: progress)
                }
                bar.finish()
            } catch {
                bar.finish()
                throw error
            }
            Output.line("Restored \(backup) to \(vault.path): \(BackupCommand.summary(report)).")
        }
    }
}
