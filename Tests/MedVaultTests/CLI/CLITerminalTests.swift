#if os(Linux)
import Foundation
import MedVaultTestSupport
import Testing

/// `medvault`'s interactive prompts, on a pseudo-terminal: echo is off while a secret is
/// typed and restored afterwards, also after an error or Ctrl-C.
@Suite("CLI terminal prompts")
struct CLITerminalTests {
    let password = CLIHarness.password

    @Test("the password prompt turns echo off and restores it; the password never shows")
    func promptWithoutEcho() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let terminal = try PseudoTerminal()
            let process = try terminal.start(["info", folder.path])
            #expect(terminal.read(until: "Password: "))
            #expect(!terminal.echoIsOn)
            terminal.type(password + "\n")
            try await terminal.wait(for: process)
            #expect(process.terminationStatus == 0)
            #expect(terminal.echoIsOn)
            #expect(terminal.transcript.contains("Key slots:"))
            #expect(!terminal.transcript.contains(password))
        }
    }

    @Test("a new password is asked twice; different entries are refused and echo comes back")
    func newPasswordMismatch() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            let terminal = try PseudoTerminal()
            let process = try terminal.start(["init", folder.path])
            #expect(terminal.read(until: "New password: "))
            terminal.type("first entry\n")
            #expect(terminal.read(until: "Repeat the new password: "))
            #expect(!terminal.echoIsOn)
            terminal.type("second entry\n")
            try await terminal.wait(for: process)
            #expect(process.terminationStatus == 7)
            #expect(terminal.transcript.contains("medvault: error: the passwords do not match"))
            #expect(terminal.echoIsOn)
            #expect(!FileManager.default.fileExists(atPath: folder.path))
        }
    }

    @Test("Ctrl-C at the prompt ends the command with echo restored")
    func interruptRestoresEcho() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let terminal = try PseudoTerminal()
            let process = try terminal.start(["verify", folder.path])
            #expect(terminal.read(until: "Password: "))
            #expect(!terminal.echoIsOn)
            terminal.type("\u{03}")
            try await terminal.wait(for: process)
            #expect(process.terminationStatus != 0)
            #expect(terminal.echoIsOn)
        }
    }

    @Test("rotate-key draws a progress bar when standard error is a terminal")
    func rotationProgressBar() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let terminal = try PseudoTerminal()
            let process = try terminal.start(["rotate-key", folder.path])
            #expect(terminal.read(until: "Password: "))
            terminal.type(password + "\n")
            try await terminal.wait(for: process)
            #expect(process.terminationStatus == 0)
            #expect(terminal.transcript.contains("Re-encrypting ["))
            #expect(terminal.transcript.contains("100%"))
            #expect(terminal.transcript.contains("Database key rotated (key generation 2)."))
        }
    }
}
#endif
