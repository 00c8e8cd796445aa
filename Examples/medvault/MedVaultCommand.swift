import ArgumentParser

/// `medvault`: manage an encrypted MedVault vault from the command line.
struct MedVaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "medvault",
        abstract: "Manage an encrypted MedVault clinical-records vault.",
        discussion: """
            The vault's folder is the first argument of every command. Each command opens \
            the vault, acts, and locks it again.

            \(HelpText.secrets)

            Example:
              medvault init ./clinic
              medvault info ./clinic
              medvault patients list ./clinic

            Exit status:
            \(ExitCodes.helpText)
            """,
        subcommands: [
            InitCommand.self,
            InfoCommand.self,
            VerifyCommand.self,
            PasswdCommand.self,
            RecoverCommand.self,
            RecoveryKeyCommand.self,
            RotateKeyCommand.self,
            ProfessionalCommand.self,
            PatientsCommand.self,
            ExportCommand.self,
            BackupCommand.self,
            RestoreCommand.self,
            ImportCommand.self,
            AuditCommand.self,
            DiagnosesCommand.self,
            SessionsCommand.self,
            ICDCommand.self,
        ]
    )
}

/// Help texts shared by the commands.
enum HelpText {
    /// Where secrets come from.
    static let secrets = """
        Secrets are read from a prompt without echo when standard input is a terminal, \
        from a file with --password-file <path>, or from standard input with \
        --password-stdin, one secret per line; never from an argument.
        """

    /// The pointer to the exit-status table.
    static let exitStatus = "Exit status: 0 on success; see `medvault --help` for the table (3 wrong password, 4 no vault, 64 usage…)."
}
