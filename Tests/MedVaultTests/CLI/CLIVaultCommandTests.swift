import Foundation
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The vault commands of `medvault`, driven as a subprocess with `--password-stdin` and
/// the fast test KDF (`MEDVAULT_TEST_FAST_KDF=1`).
@Suite("CLI vault commands")
struct CLIVaultCommandTests {
    let password = CLIHarness.password
    let other = CLIHarness.otherPassword

    @Test("init prints a boxed recovery key that parses, once")
    func initPrintsRecoveryKey() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            let result = try await CLIHarness.run(["init", folder.path, "--password-stdin"], input: password + "\n")
            #expect(result.status == 0)
            let key = try #require(CLIHarness.recoveryKey(in: result.standardOutput))
            _ = try RecoveryKey(parsing: key)
            #expect(result.standardOutput.contains("RECOVERY KEY"))
            #expect(result.standardOutput.contains("OFFLINE"))
            #expect(result.standardOutput.components(separatedBy: key).count == 2, "the key is printed once")
            #expect(!result.standardOutput.contains(password))
            #expect(result.standardError.contains("test-only key derivation"))
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("records.medvault.keyring").path))
        }
    }

    @Test("init refuses a folder that already holds a vault")
    func initRefusesExistingVault() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let result = try await CLIHarness.run(["init", folder.path, "--password-stdin"], input: password + "\n")
            #expect(result.status == 7)
            #expect(result.errorLinesWithoutWarnings == ["medvault: error: \(folder.path): the folder already holds a vault"])
        }
    }

    @Test("info shows formats, cipher settings, KDF parameters and counts, never the password")
    func infoShowsSettings() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let result = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n")
            #expect(result.status == 0)
            let output = result.standardOutput
            #expect(output.contains("Page size       4096 bytes"))
            #expect(output.contains("Cipher          aes-256-cbc"))
            #expect(output.contains("Page HMAC"))
            #expect(output.contains("generation 1"))
            #expect(output.contains("password  Argon2id m=8 KiB, t=1, p=1"))
            #expect(output.contains("recovery  HKDF-SHA256"))
            #expect(output.contains("patient"))
            #expect(output.contains("Schema"))
            #expect(!output.contains(password))
            #expect(!result.standardError.contains(password))
            #expect(result.standardError.isEmpty)
        }
    }

    @Test("verify passes on a new vault and exits 1 once the keyring is readable by others")
    func verifyReportsProblems() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            // Real Argon2id parameters: a vault made with the test preset is never sound.
            let created = try await CLIHarness.run(["init", folder.path, "--password-stdin"], input: password + "\n", fastKDF: false)
            try #require(created.status == 0)
            let sound = try await CLIHarness.run(["verify", folder.path, "--password-stdin"], input: password + "\n")
            #expect(sound.status == 0)
            #expect(sound.standardOutput.contains("checked  integrity check"))
            #expect(sound.standardOutput.contains("The vault is sound."))

            let keyring = folder.appendingPathComponent("records.medvault.keyring").path
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyring)
            let unsound = try await CLIHarness.run(["verify", folder.path, "--password-stdin"], input: password + "\n")
            #expect(unsound.status == 1)
            #expect(unsound.standardOutput.contains("PROBLEM  records.medvault.keyring is open to other users"))
            #expect(unsound.errorLines == ["medvault: error: verification found 1 problem"])
        }
    }

    @Test("verify reports, as problem lines with status 1: an audit checkpoint open to others or a link, a linked -wal, a keyring that is a named pipe")
    func verifyReportsFileProblems() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let checkpoint = folder.appendingPathComponent("records.medvault.audit")
            let keyringFile = folder.appendingPathComponent("records.medvault.keyring")
            func verify() async throws -> CLIResult {
                try await CLIHarness.run(["verify", folder.path, "--password-stdin"], input: password + "\n")
            }

            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: checkpoint.path)
            let open = try await verify()
            #expect(open.status == 1, "\(open.standardError)")
            #expect(open.standardOutput.contains("PROBLEM  records.medvault.audit is open to other users (mode 644)"),
                    "\(open.standardOutput)")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: checkpoint.path)

            let wal = folder.appendingPathComponent("records.medvault-wal")
            try? FileManager.default.removeItem(at: wal)
            try FileManager.default.createSymbolicLink(atPath: wal.path, withDestinationPath: directory.file("elsewhere").path)
            let linked = try await verify()
            #expect(linked.status == 1, "\(linked.status) \(linked.standardError)")
            #expect(linked.standardOutput.contains("PROBLEM  ") && linked.standardOutput.contains("records.medvault-wal is a symbolic link"),
                    "\(linked.standardOutput)")
            try FileManager.default.removeItem(at: wal)

            let keyring = try Data(contentsOf: keyringFile)
            try FileManager.default.removeItem(at: keyringFile)
            #expect(mkfifo(keyringFile.path, 0o600) == 0)
            let pipe = try await verify()
            #expect(pipe.status == 1, "\(pipe.status) \(pipe.standardError)")
            #expect(pipe.standardOutput.contains("PROBLEM  the vault cannot be opened: records.medvault.keyring is not a regular file"),
                    "\(pipe.standardOutput)")
            try FileManager.default.removeItem(at: keyringFile)
            try keyring.write(to: keyringFile)
        }
    }

    @Test("passwd: the old password then fails with status 3, the new one opens")
    func passwdChangesPassword() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let change = try await CLIHarness.run(["passwd", folder.path, "--password-stdin"],
                                                  input: "\(password)\n\(other)\n")
            #expect(change.status == 0)
            #expect(change.standardOutput.contains("Password changed."))

            let old = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n")
            #expect(old.status == 3)
            #expect(old.errorLines == ["medvault: error: wrong password"])
            #expect(old.standardOutput.isEmpty)
            let new = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: other + "\n")
            #expect(new.status == 0)
        }
    }

    @Test("passwd with a wrong current password changes nothing")
    func passwdWrongCurrent() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let change = try await CLIHarness.run(["passwd", folder.path, "--password-stdin"], input: "nope\n\(other)\n")
            #expect(change.status == 3)
            #expect(change.errorLines == ["medvault: error: wrong password"])
            let info = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n")
            #expect(info.status == 0)
        }
    }

    @Test("passwd with only one line says which secret is missing")
    func passwdMissingLine() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let change = try await CLIHarness.run(["passwd", folder.path, "--password-stdin"], input: password + "\n")
            #expect(change.status == 7)
            #expect(change.errorLines == ["medvault: error: standard input ended before the new password (line 2)"])
        }
    }

    @Test("recover sets a new password with the key init printed")
    func recoverWithKey() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            let key = try await CLIHarness.initVault(folder)
            let recover = try await CLIHarness.run(["recover", folder.path, "--password-stdin"],
                                                   input: "\(key.lowercased())\n\(other)\n")
            #expect(recover.status == 0)
            #expect(try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n").status == 3)
            #expect(try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: other + "\n").status == 0)
            // The recovery key keeps working.
            let again = try await CLIHarness.run(["recover", folder.path, "--password-stdin"], input: "\(key)\n\(password)\n")
            #expect(again.status == 0)
        }
    }

    @Test("recover refuses a malformed recovery key with status 7")
    func recoverMalformedKey() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let result = try await CLIHarness.run(["recover", folder.path, "--password-stdin"], input: "ABC\n\(other)\n")
            #expect(result.status == 7)
            #expect(result.errorLines == ["medvault: error: invalid recovery key: wrong length"])
        }
    }

    @Test("recovery-key replaces the key: the old one stops working, the new one works")
    func recoveryKeyRegenerates() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            let oldKey = try await CLIHarness.initVault(folder)
            let result = try await CLIHarness.run(["recovery-key", folder.path, "--password-stdin"], input: password + "\n")
            #expect(result.status == 0)
            #expect(result.standardOutput.contains("NEW RECOVERY KEY"))
            let newKey = try #require(CLIHarness.recoveryKey(in: result.standardOutput))
            #expect(newKey != oldKey)

            let withOld = try await CLIHarness.run(["recover", folder.path, "--password-stdin"], input: "\(oldKey)\n\(other)\n")
            #expect(withOld.status == 3)
            #expect(withOld.errorLinesWithoutWarnings == ["medvault: error: wrong recovery key"])
            let withNew = try await CLIHarness.run(["recover", folder.path, "--password-stdin"], input: "\(newKey)\n\(other)\n")
            #expect(withNew.status == 0)
        }
    }

    @Test("rotate-key: plain final line off a terminal, no copy left beside the vault, then generation 2 and verify passes")
    func rotateKey() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let rotate = try await CLIHarness.run(["rotate-key", folder.path, "--password-stdin"], input: password + "\n")
            #expect(rotate.status == 0)
            #expect(rotate.standardOutput == "Database key rotated (key generation 2).\n")
            #expect(!rotate.standardError.contains("\r"), "no progress bar when standard error is not a terminal")
            // Nothing of the re-encrypted copy is left beside the vault (its -wal and -shm were).
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(!names.contains { $0.contains(".rekey") }, "\(names.sorted())")

            let info = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n")
            #expect(info.standardOutput.contains("generation 2"))
            let verify = try await CLIHarness.run(["verify", folder.path, "--password-stdin"], input: password + "\n")
            // The only problem: the test preset's weak password slot.
            #expect(verify.errorLines == ["medvault: error: verification found 1 problem"])
            #expect(verify.standardOutput.contains("PROBLEM  a password slot uses Argon2id m=8 KiB, t=1, below the production floor"))
        }
    }

    @Test("info flags and verify reports a password slot below the production floor, until passwd re-protects it")
    func weakSlotFlagged() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let info = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n")
            #expect(info.status == 0)
            #expect(info.standardOutput.contains("Argon2id m=8 KiB, t=1, p=1  WEAK: below the production floor"))
            #expect(info.standardOutput.contains("Warning: a password slot is below the Argon2id production floor"))
            let verify = try await CLIHarness.run(["verify", folder.path, "--password-stdin"], input: password + "\n")
            #expect(verify.status == 1)
            #expect(verify.standardOutput.contains("checked  password slots meet the Argon2id production floor"))
            #expect(verify.standardOutput.contains(
                "PROBLEM  a password slot uses Argon2id m=8 KiB, t=1, below the production floor (m=19456 KiB, t=2)"))

            let changed = try await CLIHarness.run(["passwd", folder.path, "--password-stdin"],
                                                   input: password + "\n" + password + "\n", fastKDF: false)
            #expect(changed.status == 0, "\(changed.standardError)")
            let after = try await CLIHarness.run(["info", folder.path, "--password-stdin"], input: password + "\n")
            #expect(!after.standardOutput.contains("WEAK"))
        }
    }
}
