import Foundation
@testable import MedVault
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// `medvault audit` and `medvault audit verify`, as a subprocess.
@Suite("CLI audit commands")
struct CLIAuditTests {
    let password = CLIHarness.password

    @Test("audit lists entries (filtered by patient and action); audit verify exits 0, then 2 naming the entry after raw SQL edited it")
    func listAndVerify() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            for name in ["Ana", "Luis"] {
                let added = try await CLIHarness.run(["patients", "add", folder.path, "--password-stdin", "--first-name", name,
                                                      "--last-name", "Ruiz", "--birth-date", "1980-01-01"], input: password + "\n")
                #expect(added.status == 0, "\(added.standardError)")
            }
            let listed = try await CLIHarness.run(["audit", folder.path, "--password-stdin"], input: password + "\n")
            #expect(listed.status == 0)
            let lines = listed.standardOutput.split(separator: "\n").map(String.init)
            // init's unlock; per `patients add`, its unlock and the create; this command's unlock.
            #expect(lines.map { $0.split(separator: " ", omittingEmptySubsequences: true)[3] }
                    == ["unlock", "unlock", "create", "unlock", "create", "unlock"])
            #expect(!listed.standardOutput.contains("Ana") && !listed.standardOutput.contains("Ruiz"))

            let creates = try await CLIHarness.run(["audit", folder.path, "--password-stdin", "--action", "create", "--limit", "1"],
                                                   input: password + "\n")
            #expect(creates.standardOutput.split(separator: "\n").count == 1)
            let id = try #require(creates.standardOutput.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first)
            let byPatient = try await CLIHarness.run(["audit", folder.path, "--password-stdin", "--patient", String(id.prefix(8)),
                                                      "--since", "2000-01-01"], input: password + "\n")
            #expect(byPatient.status == 0)
            #expect(byPatient.standardOutput.split(separator: "\n").count == 1)
            #expect(byPatient.standardOutput.contains(String(id)))

            let bad = try await CLIHarness.run(["audit", folder.path, "--password-stdin", "--action", "nonsense"], input: password + "\n")
            #expect(bad.status == 64)

            let intact = try await CLIHarness.run(["audit", "verify", folder.path, "--password-stdin"], input: password + "\n")
            #expect(intact.status == 0)
            #expect(intact.standardOutput.contains("The audit trail is intact: 9 entries verified."))

            let key = try VaultFixtures.databaseKey(in: folder, password: try Password(password))
            let pool = try await VaultDatabase.open(at: VaultLayout(folder: folder).database, key: key, mode: .openExisting,
                                                   migrator: MedVaultSchema.migrator)
            try await pool.write { db in
                try db.executeScript("DROP TRIGGER medvault_audit_no_update; UPDATE medvault_audit SET time = time - 1 WHERE seq = 3;")
            }
            await pool.close()
            key.wipe()
            let tampered = try await CLIHarness.run(["audit", "verify", folder.path, "--password-stdin"], input: password + "\n")
            #expect(tampered.status == 2)
            #expect(tampered.standardOutput.contains("TAMPERED  entry 3: edited"))
            #expect(tampered.errorLinesWithoutWarnings == ["medvault: error: the audit trail was tampered with at entry 3 (edited)"])
        }
    }

    @Test("audit prints action and table names that someone holding the database key rewrote escaped: no terminal escape, no forged line")
    func hostileNamesAreEscaped() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let added = try await CLIHarness.run(["patients", "add", folder.path, "--password-stdin", "--first-name", "Ana",
                                                  "--last-name", "Ruiz", "--birth-date", "1980-01-01"], input: password + "\n")
            #expect(added.status == 0, "\(added.standardError)")

            let key = try VaultFixtures.databaseKey(in: folder, password: try Password(password))
            let pool = try await VaultDatabase.open(at: VaultLayout(folder: folder).database, key: key, mode: .openExisting,
                                                   migrator: MedVaultSchema.migrator)
            try await pool.write { db in
                try db.executeScript("DROP TRIGGER medvault_audit_no_update;")
                try db.execute("UPDATE medvault_audit SET action = ?, entity_table = ? WHERE entity_id IS NOT NULL",
                               [.text("create\u{1B}[31m\n99  2026-01-01 00:00  unlock  FORGED\u{0}"),
                                .text("patient\r\u{202E}gnp.exe\u{2028}")])
            }
            await pool.close()
            key.wipe()

            let listed = try await CLIHarness.run(["audit", folder.path, "--password-stdin"], input: password + "\n")
            #expect(listed.status == 0, "\(listed.standardError)")
            let output = listed.standardOutput
            for raw in ["\u{1B}", "\r", "\u{0}", "\u{202E}", "\u{2028}"] {
                #expect(!output.contains(raw), "a raw \(raw.unicodeScalars.map { String($0.value, radix: 16) }) reached the terminal")
            }
            #expect(!output.split(separator: "\n").contains { $0.hasPrefix("99 ") }, "a stored newline forged a line: \(output)")
            #expect(output.contains("create\\e[31m\\n99"), "\(output)")
            #expect(output.contains("patient\\r\\u{202E}gnp.exe"), "\(output)")
        }
    }

    @Test("A dropped audit table is reported as tampering: commands exit 6 naming it, verify prints a problem and exits 1")
    func droppedAuditTable() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.file("clinic")
            _ = try await CLIHarness.initVault(folder)
            let key = try VaultFixtures.databaseKey(in: folder, password: try Password(password))
            let pool = try await VaultDatabase.open(at: VaultLayout(folder: folder).database, key: key, mode: .openExisting,
                                                   migrator: MedVaultSchema.migrator)
            try await pool.write { db in try db.executeScript("DROP TABLE medvault_audit;") }
            await pool.close()
            key.wipe()

            for command in [["info"], ["audit"], ["patients", "list"]] {
                let run = try await CLIHarness.run(command + [folder.path, "--password-stdin"], input: password + "\n")
                #expect(run.status == 6, "\(command): \(run.status) \(run.standardError)")
                #expect(run.standardError.contains("audit trail's table was removed"), "\(command): \(run.standardError)")
                #expect(!run.standardError.contains("SQL logic error"), "\(run.standardError)")
            }
            let verify = try await CLIHarness.run(["verify", folder.path, "--password-stdin"], input: password + "\n")
            #expect(verify.status == 1, "\(verify.standardError)")
            #expect(verify.standardOutput.contains("PROBLEM  the database cannot be opened: the audit trail's table was removed"),
                    "\(verify.standardOutput)")
        }
    }
}
