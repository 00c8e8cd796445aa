import ArgumentParser
import Foundation
import MedVault

/// `medvault info <vault>`: formats, settings and counts; no patient data.
struct InfoCommand: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the vault's format, cipher settings, key slots and record counts.",
        discussion: """
            Shows no record content: only versions, settings, key-derivation parameters, \
            and how many rows each table holds.

            Example:
              medvault info ./clinic

            \(HelpText.exitStatus)
            """
    )

    @OptionGroup var vault: VaultArguments

    func run() async throws {
        try await reportingFailures {
            let info = try await withOpenVault { opened in try await opened.info() }
            for line in Self.lines(for: info, path: vault.folder.standardizedFileURL.path) {
                Output.line(line)
            }
        }
    }

    /// The report's lines.
    static func lines(for info: VaultInfo, path: String) -> [String] {
        let cipher = info.cipherSettings
        var lines = Output.table([
            ("Vault", path),
            ("Vault ID", info.vaultID.uuidString),
            ("Keyring format", "version \(info.keyringFormatVersion)"),
            ("Schema", "version \(info.schemaVersion)"),
            ("SQLCipher", info.sqlcipherVersion),
            ("Cipher", cipher.cipher),
            ("Page size", "\(cipher.pageSize) bytes"),
            ("Page HMAC", cipher.usesHMAC ? cipher.hmacAlgorithm : "off"),
            ("Compatibility", "SQLCipher \(cipher.compatibility)"),
            ("Database key", "raw 256-bit key, generation \(info.databaseKeyGeneration)"),
            ("Database size", Output.byteCount(info.databaseByteCount)),
        ])
        lines.append("")
        lines.append("Key slots:")
        lines += Output.table(info.slots.map { slot in
            (slot.kind.description, Self.derivation(of: slot) + (slot.isBelowProductionFloor ? "  WEAK: below the production floor" : ""))
        }, indent: 2)
        if !info.weakPasswordSlots.isEmpty {
            lines.append("")
            lines.append("Warning: a password slot is below the Argon2id production floor; change the password to re-protect it.")
        }
        lines.append("")
        lines.append("Records:")
        lines += Output.table(info.recordCounts.sorted { $0.key < $1.key }.map { ($0.key, String($0.value)) }, indent: 2)
        return lines
    }

    /// How a slot derives its key-encryption key, without secrets.
    static func derivation(of slot: KeySlot) -> String {
        if let parameters = slot.argon2Parameters {
            return "Argon2id m=\(parameters.memoryKiB) KiB, t=\(parameters.iterations), p=\(parameters.parallelism)"
        }
        switch slot.kind {
        case .recovery: return "HKDF-SHA256 (256-bit recovery key)"
        case .platform: return "secret store"
        default: return "unknown"
        }
    }
}
