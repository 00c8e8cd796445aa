import Foundation
import MedVault
import MedVaultChildProcess
import MedVaultCore
import MedVaultKeys
import MedVaultSync
import Testing

/// The offline guessing attack of issue #31, run by an independent script
/// (`Tests/Scripts/keyring_guess.py`: Python's argon2-cffi and cryptography, written from
/// docs/keyring-format.md): given everything the server stores, it recognises no
/// password guess, because the keyring it holds is sealed under the vault's sync secret,
/// which never reaches the server.
@Suite("The server's data cannot check a password guess")
struct SyncKeyringGuessTests {
    struct Verdict: Decodable {
        var keyrings: Int
        var sealed: Int
        var sealedOpened: Int
        var guesses: Int
        var found: String?
    }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Scripts/keyring_guess.py").path

    /// Runs the guesser on its own thread (a child process is waited for there).
    static func guess(_ arguments: [String]) async throws -> Verdict {
        let output = try await ChildProcess.onOwnThread { try ChildProcess.run("/usr/bin/env", ["python3", script] + arguments) }
        return try JSONDecoder().decode(Verdict.self, from: output)
    }

    @Test("pg_dump and a word list holding the password: no guess recognised; with the sync secret, or a device's own keyring file, the same script finds it")
    func dumpRecognisesNoGuess() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            let b = try await devices.join(a, transport)
            // A password change is published (sealed) and adopted: the server has held two keyrings.
            let changed = "segunda contraseña Q7"
            try await a.vault.changePassword(from: try Password(EngineDevices.password), to: try Password(changed))
            try await syncAll([a, b])
            #expect(try await server.sql("SELECT generation FROM keyrings") == "2")

            let dump = devices.folder.appendingPathComponent("server.sql")
            try await server.postgres.dump(server.database).write(to: dump)
            let words = devices.folder.appendingPathComponent("words.txt")
            try ["123456", "password", "contraseña", EngineDevices.password, changed, "medvault"]
                .joined(separator: "\n").write(to: words, atomically: true, encoding: .utf8)

            let blind = try await Self.guess(["--words", words.path, "--dump", dump.path])
            #expect(blind.found == nil)
            #expect(blind.keyrings == 0)
            #expect(blind.sealed == 1)

            let secret = try #require(try await a.engine.syncSecret()).formatted
            let informed = try await Self.guess(["--words", words.path, "--dump", dump.path, "--secret", secret])
            #expect(informed.sealedOpened == 1)
            #expect(informed.found == changed)

            let own = try await Self.guess(["--words", words.path, "--keyring", b.vault.layout.keyring.path])
            #expect(own.found == changed)
        } }
    }
}
