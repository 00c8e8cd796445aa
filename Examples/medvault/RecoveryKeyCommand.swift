import ArgumentParser
import Foundation
import MedVault

/// `medvault recovery-key <vault>`: replaces the recovery key.
struct RecoveryKeyCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery-key",
        abstract: "Replace the recovery key with a new one; the old one stops working.",
        discussion: """
            Use it when the recovery key may have been seen by someone else. The new key \
            is printed once, in a box: store it offline.

            Example:
              medvault recovery-key ./clinic

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    func run() async throws {
        try await reportingFailures {
            // The new key is on the screen (or in the file standard output goes to) before
            // the keyring that makes it the only recovery key is written: a kill at any
            // point leaves the old key working or the new one shown (issue #34).
            let shown = ShownFlag()
            do {
                _ = try await withOpenVault { opened in
                    try await opened.regenerateRecoveryKey(showingFirst: { key in
                        try Output.lineNow(Output.recoveryKeyBlock(key, title: "NEW RECOVERY KEY"))
                        try Output.lineNow("Not active until the line below confirms it. If no such line follows,\n"
                                           + "keep BOTH this key and the old one: one of them opens the vault.")
                        shown.set()
                    })
                }
            } catch {
                if shown.isSet {
                    try? Output.lineNow("The key above was NOT installed: the old recovery key still opens the vault.")
                }
                throw error
            }
            Output.line()
            Output.line("The recovery key was replaced; the old one no longer opens the vault.")
        }
    }
}

/// Whether the new key was shown (set from the key operation, read after it).
private final class ShownFlag: @unchecked Sendable {
    // Safety of @unchecked Sendable: `value` is read and written only under `lock`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
