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
            have a known schema. Only then is it renamed into place. The target may be a new \
            or empty folder, or a vault's folder that no process has open: that vault is \
            REPLACED (its keyring is shredded). A damaged or foreign backup changes nothing.

            Example:
              medvault restore ./backups/clinic-2026-11-23 ./clinic

            \(HelpText.exitStatus)
            """
    )

    @Argument(help: ArgumentHelp("The backup's folder (written by `medvault backup`).", valueName: "backup"))
    var backup: String

    @OptionGroup var vault: VaultArguments

    @Flag(help: "Verify the backup with its recovery key instead of its password.")
    var recoveryKey = false

    func run() async throws {
        try await reportingFailures {
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
