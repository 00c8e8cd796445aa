import ArgumentParser
import Foundation

/// The session a `sessions` subcommand works on: its whole identifier, checked while
/// parsing so a bad one is a usage error (exit 64) before any vault is opened.
struct SessionArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The session's identifier (whole).", valueName: "session-id"))
    var sessionID: String

    /// The parsed identifier (``validate()`` guarantees one).
    var id: UUID? { UUID(uuidString: sessionID) }

    func validate() throws {
        if id == nil { throw ValidationError("the session id must be a whole identifier (UUID)") }
    }
}
