import Foundation
import MedVaultTestSupport
import Testing

/// How `medvault` fails: one line on standard error and a documented exit status.
@Suite("CLI errors and secret sources")
struct CLIErrorTests {
    let password = CLIHarness.password

    @Test("a wrong password exits 3 with one line on standard error")
    func wrongPassword() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let result = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: "not it\n")
            #expect(result.status == 3)
            #expect(result.standardError == "medvault: error: wrong password\n")
            #expect(result.standardOutput.isEmpty)
        }
    }

    @Test("a path with no vault exits 4")
    func noVault() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("nothing-here")
            let result = try await CLIHarness.run(["verify", folder.path, "--password-stdin"], input: password + "\n")
            #expect(result.status == 4)
            #expect(result.errorLines == ["medvault: error: \(folder.path): there is no vault keyring in this folder"])
        }
    }

    @Test("a path with no vault fails before any secret is asked for", arguments: ["info", "passwd", "recover"])
    func noVaultBeforePrompt(command: String) async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("nothing-here")
            let result = try await CLIHarness.run([command, folder.path], input: nil, timeoutSeconds: 20)
            #expect(result.status == 4)
            #expect(result.errorLines == ["medvault: error: \(folder.path): there is no vault keyring in this folder"])
        }
    }

    @Test("a vault whose keyring was deleted exits 4")
    func keyringDeleted() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            try FileManager.default.removeItem(at: folder.appendingPathComponent("records.medvault.keyring"))
            let result = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n")
            #expect(result.status == 4)
            #expect(result.errorLines.count == 1)
            #expect(result.standardError.contains("no vault keyring"))
        }
    }

    @Test("a damaged keyring exits 6")
    func keyringDamaged() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            try Data("not a keyring".utf8).write(to: folder.appendingPathComponent("records.medvault.keyring"))
            let result = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n")
            #expect(result.status == 6)
            #expect(result.errorLines.count == 1)
        }
    }

    @Test("no password source on a non-terminal stdin is a usage error, not a hang", arguments: [nil, "piped\n"])
    func noPasswordSource(input: String?) async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let result = try await CLIHarness.run(["info", folder.path], input: input, timeoutSeconds: 20)
            #expect(result.status == 64)
            #expect(result.errorLines == [
                "medvault: error: no password given and standard input is not a terminal; use --password-stdin or --password-file <path>",
            ])
        }
    }

    @Test("an empty password line is refused with status 7")
    func emptyPassword() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            let result = try await CLIHarness.run(["init", folder.path, "--password-stdin"], input: "\n")
            #expect(result.status == 7)
            #expect(result.errorLinesWithoutWarnings == ["medvault: error: password: must not be empty"])
            #expect(!FileManager.default.fileExists(atPath: folder.path))
        }
    }

    @Test("init and passwd refuse a password under the policy with status 7, naming the rule, creating or changing nothing")
    func weakPassword() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            let short = try await CLIHarness.run(["init", folder.path, "--password-stdin"], input: "probe\n")
            #expect(short.status == 7)
            #expect(short.errorLinesWithoutWarnings == ["medvault: error: password: must have at least 12 characters"])
            #expect(!FileManager.default.fileExists(atPath: folder.path))
            _ = try await CLIHarness.initVault(folder)
            let keyring = folder.appendingPathComponent("records.medvault.keyring")
            let before = StorageFixtures.keyMaterial(keyring)
            let weak = try await CLIHarness.run(["passwd", folder.path, "--password-stdin"],
                                                input: password + "\naaaaaaaaaaaaaaaaaa\n")
            #expect(weak.status == 7, "\(weak.standardError)")
            #expect(weak.errorLinesWithoutWarnings.first?.hasPrefix("medvault: error: password: is too predictable") == true)
            #expect(StorageFixtures.keyMaterial(keyring) == before)
        }
    }

    @Test("empty standard input says which secret is missing")
    func emptyStandardInput() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            let result = try await CLIHarness.run(["init", folder.path, "--password-stdin"], input: "")
            #expect(result.status == 7)
            #expect(result.errorLines == ["medvault: error: standard input ended before the new password (line 1)"])
        }
    }

    @Test("--password-file reads one secret per line and warns when others may read it")
    func passwordFile() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let file = directory.file("secrets")
            try Data("\(password)\r\n\(CLIHarness.otherPassword)\n".utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            let change = try await CLIHarness.run(["passwd", folder.path, "--password-file", file.path])
            #expect(change.status == 0)
            #expect(change.errorLinesWithoutWarnings.isEmpty)
            #expect(!change.standardError.contains("accessible by other users"))

            try Data("\(CLIHarness.otherPassword)\n".utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            let info = try await CLIHarness.run(["info", folder.path, "--password-file", file.path])
            #expect(info.status == 0)
            #expect(info.errorLines == [
                "medvault: warning: \(file.path) is accessible by other users; make it private with chmod 600",
            ])
        }
    }

    @Test("a missing password file exits 4")
    func missingPasswordFile() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let file = directory.file("absent")
            let result = try await CLIHarness.run(["info", folder.path, "--password-file", file.path])
            #expect(result.status == 4)
            #expect(result.errorLines == ["medvault: error: \(file.path): no such password file"])
        }
    }

    @Test("--password-file and --password-stdin together are a usage error")
    func conflictingSources() async throws {
        let result = try await CLIHarness.run(["info", "/tmp/x", "--password-file", "/tmp/p", "--password-stdin"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("not both"))
    }

    @Test("a password is never accepted as an argument")
    func noPasswordArgument() async throws {
        let result = try await CLIHarness.run(["info", "/tmp/x", "--password", "secret"])
        #expect(result.status == 64)
    }

    @Test("every command's help has an example and hides the test KDF flag",
          arguments: ["init", "info", "verify", "passwd", "recover", "recovery-key", "rotate-key"])
    func helpHasExample(command: String) async throws {
        let result = try await CLIHarness.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Example:"))
        #expect(result.standardOutput.contains("medvault \(command) ./clinic"))
        #expect(result.standardOutput.contains("--password-stdin"))
        #expect(!result.standardOutput.contains("fast-kdf"))
    }

    @Test("the root help lists the commands and the exit-status table")
    func rootHelp() async throws {
        let result = try await CLIHarness.run(["--help"])
        #expect(result.status == 0)
        for command in ["init", "info", "verify", "passwd", "recover", "recovery-key", "rotate-key"] {
            #expect(result.standardOutput.contains(command))
        }
        #expect(result.standardOutput.contains("Exit status:"))
        #expect(result.standardOutput.contains("3   wrong password or recovery key"))
        #expect(result.standardOutput.contains("64  usage error"))
    }

    @Test("without the test switch, init uses the recommended Argon2id parameters")
    func recommendedParametersByDefault() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            let created = try await CLIHarness.run(["init", folder.path, "--password-stdin"], input: password + "\n", fastKDF: false)
            #expect(created.status == 0)
            #expect(created.standardError.isEmpty)
            let info = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n", fastKDF: false)
            #expect(info.standardOutput.contains("Argon2id m=65536 KiB, t=3, p=4"))
        }
    }

    @Test("the hidden --fast-kdf-for-tests flag selects the test parameters, with a warning")
    func hiddenFastFlag() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            let created = try await CLIHarness.run(["init", folder.path, "--password-stdin", "--fast-kdf-for-tests"],
                                                   input: password + "\n", fastKDF: false)
            #expect(created.status == 0)
            #expect(created.errorLines == [
                "medvault: warning: test-only key derivation parameters in use: never use them for real records",
            ])
            let info = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n", fastKDF: false)
            #expect(info.standardOutput.contains("Argon2id m=8 KiB, t=1, p=1"))
        }
    }
}
