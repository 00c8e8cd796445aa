import ArgumentParser
import Foundation
import MedVault

/// `medvault audit …`: list the vault's audit trail, or verify it.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "List the vault's audit trail, or verify that it was not tampered with.",
        discussion: """
            The trail records every change to a record and every export, backup, restore, \
            import, unlock, refused unlock, key operation and sync: when, on which device, \
            by whom (the vault's professional), what and which record — never a field value \
            (docs/audit.md).

            Example:
              medvault audit ./clinic --patient 3f2a9c1e --since 2026-01-01
              medvault audit verify ./clinic

            \(HelpText.exitStatus)
            """,
        subcommands: [AuditListCommand.self, AuditVerifyCommand.self],
        defaultSubcommand: AuditListCommand.self
    )
}

/// `medvault audit [list] <vault> [--patient ID] [--since DATE] [--action NAME] [--limit N]`.
struct AuditListCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List audit entries, oldest first (the default of `medvault audit`).",
        discussion: """
            One line per entry: sequence, local time, action, table, record id, actor. \
            Actions: \(Self.actionNames).

            Example:
              medvault audit ./clinic --action export --limit 20

            \(HelpText.exitStatus)
            """
    )

    static let actionNames = AuditAction.builtIn.map { $0.rawValue }.joined(separator: ", ")

    @OptionGroup var vault: VaultArguments

    @Option(help: ArgumentHelp("Only entries about this patient's records (id or its first 8 characters).", valueName: "id"))
    var patient: String?

    @Option(help: ArgumentHelp("Only entries from this day (YYYY-MM-DD, local time) on.", valueName: "date"))
    var since: String?

    @Option(help: ArgumentHelp("Only entries of this action.", valueName: "name"))
    var action: String?

    @Option(help: ArgumentHelp("Show at most this many entries (default 1000).", valueName: "n"))
    var limit: Int = 1_000

    func validate() throws {
        if let action, !AuditAction.builtIn.map(\.rawValue).contains(action) {
            throw ValidationError("unknown action; use one of: \(AuditAction.builtIn.map(\.rawValue).joined(separator: ", "))")
        }
        if let since, Self.day(since) == nil {
            throw ValidationError("--since takes a date as YYYY-MM-DD")
        }
        guard (1...100_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 100000") }
    }

    /// Local midnight of a `YYYY-MM-DD` day.
    static func day(_ text: String) -> Date? {
        guard let date = try? CalendarDate(iso8601: text) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        return calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day))
    }

    func run() async throws {
        try await reportingFailures {
            let entries = try await withOpenVault { opened in
                var patientID: UUID?
                if let patient { patientID = try await opened.patients.get(idOrPrefix: patient).id }
                return try await opened.audit.entries(
                    patient: patientID, from: since.flatMap(Self.day), actions: action.map { [AuditAction(rawValue: $0)] },
                    limit: limit)
            }
            guard !entries.isEmpty else {
                Output.line("No audit entries.")
                return
            }
            for entry in entries { Output.line(Self.line(entry)) }
        }
    }

    /// One entry: ids and codes only, nothing a record holds; a change that came through
    /// sync ends with the device that made it (`from` and its id's first 8 characters).
    /// The action and table are stored text that someone holding the database key can
    /// rewrite: escaped, so a stored newline cannot forge a line nor an escape sequence
    /// reach the terminal.
    static func line(_ entry: AuditEntry) -> String {
        [String(entry.sequence), PatientTable.dayAndTime(entry.time), TextSafety.escaped(entry.action.rawValue),
         entry.table.map { TextSafety.escaped($0.rawValue) } ?? "-", entry.entityID?.uuidString.lowercased() ?? "-",
         entry.actor.map { "actor " + $0.uuidString.lowercased().prefix(8) } ?? "-"]
            .joined(separator: "  ")
            + (entry.syncedFrom.map { "  from " + $0.uuidString.lowercased().prefix(8) } ?? "")
    }
}

/// `medvault audit verify <vault>`: exit 0 when the trail is intact, 2 when tampered.
struct AuditVerifyCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify the audit trail's hash chain and checkpoint.",
        discussion: """
            Recomputes every entry's MAC (under a key only the vault key gives) and compares \
            the chain's head with the checkpoint kept beside the keyring. Prints the first \
            bad position and why (edited, missing, reordered, truncated, badCheckpoint) and \
            exits with status \(ExitCodes.auditTampered) when the trail was tampered with.

            Example:
              medvault audit verify ./clinic

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    func run() async throws {
        try await reportingFailures {
            let verification = try await withOpenVault { opened in try await opened.audit.verify() }
            switch verification {
            case .intact(let count):
                Output.line("The audit trail is intact: \(count) entr\(count == 1 ? "y" : "ies") verified.")
            case .tampered(let sequence, let problem):
                Output.line("TAMPERED  entry \(sequence): \(problem.rawValue)")
                throw CLIError(status: ExitCodes.auditTampered,
                               message: "the audit trail was tampered with at entry \(sequence) (\(problem.rawValue))")
            }
        }
    }
}
