import ArgumentParser

/// `medvault sessions …`: a session's signed record, signing, and addenda.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "Show, sign and amend clinical sessions (signed notes and addenda).",
        subcommands: [SessionsAddCommand.self, SessionsShowCommand.self, SessionsSignCommand.self, SessionsAmendCommand.self,
                      SessionsVerifyCommand.self]
    )
}
