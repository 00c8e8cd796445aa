import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A vault written here (SQLCipher 3.4) read and written by an independent SQLCipher 4:
/// PyPI's `sqlcipher3-binary`, driven by `Tests/Scripts/sqlcipher4_roundtrip.py`, which
/// `make deps` installs.
@Suite("SQLCipher 4 compatibility, proven with Python's sqlcipher3")
struct SQLCipher4CompatibilityTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/sqlcipher4_roundtrip.py")

    struct Answer: Decodable {
        let cipher_version: String
        let patients: [String]
        let markers: [[String]]
        let journal_mode: String
        let integrity: String
    }

    /// Runs the script on `database`; the key goes through standard input only.
    static func runScript(_ database: URL, mode: String, key: SecureBytes,
                          pragmas: [String] = []) async throws -> (status: Int32, answer: Answer?, errors: String) {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, database.path, mode]
        let input = Pipe()
        process.standardInput = input
        let run = try await process.runCapturingOutput { try send(key, pragmas, to: input) }
        let answer = run.status == 0 ? try? JSONDecoder().decode(Answer.self, from: run.output) : nil
        return (run.status, answer, run.errorText)
    }

    /// Writes the request (the key in hex, the pragmas) to the script's standard input
    /// and closes it; the request's bytes are wiped after.
    private static func send(_ key: SecureBytes, _ pragmas: [String], to input: Pipe) throws {
        var request = Array(#"{"key": ""#.utf8)
        let digits = Array("0123456789abcdef".utf8)
        try key.withUnsafeBytes { bytes in
            for byte in bytes { request += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        }
        request += Array(#"", "pragmas": "#.utf8)
        request += Array(try JSONSerialization.data(withJSONObject: pragmas))
        request += Array("}".utf8)
        input.fileHandleForWriting.write(Data(request))
        for index in request.indices { request[index] = 0 }
        try input.fileHandleForWriting.close()
    }

    static func markers(_ vault: Vault) async throws -> [[String]] {
        try await vault.database.read { db in
            try db.fetchAll("SELECT origin, note FROM compat_marker ORDER BY origin") { row in [row.text(at: 0), row.text(at: 1)] }
        }
    }

    @Test("SQLCipher 4 reads a vault written here with the documented pragmas, writes a row MedVault reads back; SQLCipher 4's defaults cannot")
    func roundTrip() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 1)
            try await created.vault.database.write { db in
                let version = try db.cipherVersion()
                try db.executeScript("CREATE TABLE compat_marker(origin TEXT PRIMARY KEY, note TEXT NOT NULL);")
                try db.execute("INSERT INTO compat_marker(origin, note) VALUES ('medvault', ?)",
                               [.text("written by SQLCipher \(version)")])
            }
            await created.vault.lock()
            let database = VaultLayout(folder: dir.url).database
            // The test learns the raw key the way any tool would: through MedVaultKeys' public API.
            let keyring = try KeyringFile.read(at: VaultLayout(folder: dir.url).keyring)
            let key = try keyring.databaseKey(vaultKey: try keyring.unlock(password: password))
            defer { key.wipe() }

            // SQLCipher 4 with only the page size (what MedVault pinned before) cannot read it.
            let defaults = try await Self.runScript(database, mode: "given", key: key, pragmas: ["PRAGMA cipher_page_size = 4096"])
            try #require(defaults.status != 127 && defaults.status != 3,
                         "python3 with the sqlcipher3 module (PyPI sqlcipher3-binary) is needed: run `make deps`. \(defaults.errors)")
            #expect(defaults.status != 0)
            #expect(defaults.errors.contains("not a database"))

            // The recipe of docs/inspecting-a-vault.md: read, then write and checkpoint.
            let documented = try await Self.runScript(database, mode: "documented", key: key)
            #expect(documented.status == 0, "\(documented.errors)")
            let answer = try #require(documented.answer)
            #expect(answer.cipher_version.hasPrefix("4."))
            #expect(answer.patients == ["Paciente 0"])
            #expect(answer.markers == [["medvault", "written by SQLCipher 3.4.1"]])
            #expect(answer.journal_mode == "wal")
            #expect(answer.integrity == "ok")

            // MedVault reopens it and reads SQLCipher 4's row; the vault is still sound.
            let reopened = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            #expect(try await Self.markers(reopened) == [
                ["medvault", "written by SQLCipher 3.4.1"], ["python", "written by SQLCipher \(answer.cipher_version)"],
            ])
            #expect(try await VaultFixtures.patientCount(reopened) == 1)
            let verification = try await reopened.verify()
            #expect(verification.problemsBesidesTestKDF.isEmpty, "\(verification.problems)")
            await reopened.lock()

            // The exact statements MedVault itself runs on a SQLCipher 4 connection open it too.
            let statements = try CipherPragmas.statements(for: keyring.cipherSettings, majorVersion: 4)
            let given = try await Self.runScript(database, mode: "given", key: key, pragmas: statements)
            #expect(given.status == 0, "\(given.errors)")
            #expect(given.answer?.markers.count == 2)
            #expect(given.answer?.integrity == "ok")
        }
    }
}
