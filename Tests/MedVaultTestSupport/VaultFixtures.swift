import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// Helpers for tests of the `Vault` facade: fast Argon2 parameters and raw rows.
package enum VaultFixtures {
    package static let options = Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))

    package static func password(_ text: String = "contraseña segura") throws -> Password {
        try Password(text)
    }

    /// Inserts `count` minimal patient rows with raw SQL, numbered from `start`.
    /// How many 4096-byte pages differ between two database files (a page only one has counts).
    package static func changedPages(_ before: Data, _ after: Data, pageSize: Int = 4096) -> Int {
        let pages = max(before.count, after.count) / pageSize
        return (0..<pages).filter { page in
            let range = (page * pageSize)..<((page + 1) * pageSize)
            guard range.upperBound <= before.count, range.upperBound <= after.count else { return true }
            return before[range] != after[range]
        }.count
    }

    package static func insertRawPatients(_ vault: Vault, count: Int, start: Int = 0) async throws {
        try await vault.database.write { db in
            for n in start..<(start + count) {
                try db.execute("""
                    INSERT INTO patient(id, first_name, last_name, sort_key, date_of_birth, created_at, updated_at, version)
                    VALUES (?, ?, ?, ?, '1980-01-01', 0, 0, 1)
                    """, [UUID().vaultValue, .text("Paciente \(n)"), .text("Núñez"), .text("nunez\u{1}paciente \(n)")])
            }
        }
    }

    package static func patientCount(_ vault: Vault) async throws -> Int {
        try await vault.database.read { db in
            try db.fetchOne("SELECT count(*) FROM patient") { row in Int(row.int64(at: 0)) } ?? 0
        }
    }

    /// The database key the keyring currently holds, for raw-open checks.
    package static func databaseKey(in folder: URL, password: Password) throws -> SecureBytes {
        let keyring = try KeyringFile.read(at: VaultLayout(folder: folder).keyring)
        let vaultKey = try keyring.unlock(password: password)
        return try keyring.databaseKey(vaultKey: vaultKey)
    }
}

extension VaultVerification {
    /// The problems other than the weak password slot every vault made with the test
    /// preset has (8 KiB Argon2 is below the production floor, which verify reports).
    package var problemsBesidesTestKDF: [String] { problems.filter { !$0.contains("below the production floor") } }
}
