import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Against a holder of the database key (not the vault key) who drops the signing triggers
/// and rewrites a signed note: the digest can be recomputed by anyone, the Ed25519
/// signature under this vault's key for the professional cannot. `verifySignature(of:)`
/// never says `verified` again (issue #32).
@Suite("Session signatures against a rewritten database")
struct SessionSignatureForgeryTests {
    typealias F = ClinicalFixtures

    @Test("Notes and digest rewritten with the triggers dropped: mismatch; signed again with another key: signedByAnotherKey; Ed25519 removed: sealedOnly — never verified; the signer's name or time changed under a valid signature: mismatch")
    func rewrittenNotesNeverVerify() async throws {
        let f = try await SigningSQLTriggerTests.fixture()
        defer { Task { await f.database.close() } }
        let pool = f.database.pool
        #expect(try await f.records.sessions.verifySignature(of: f.session.id) == .verified)
        let signature = try #require(f.signature.signatureBytes)
        #expect(signature.count == 64 && f.signature.signerPublicKey?.count == 32)

        let triggers = try await pool.read { db in
            try db.fetchAll("""
                SELECT name FROM sqlite_master WHERE type = 'trigger'
                AND tbl_name IN ('clinical_session', 'session_signature', 'diagnosis')
                """) { $0.text(at: 0) }
        }
        #expect(!triggers.isEmpty)
        var forged = try await f.records.sessions.get(f.session.id)
        forged.notes = "forged after signing"
        let content = SessionSigningContent(session: forged, diagnoses: [f.diagnosis])
        try await pool.write { db in
            for trigger in triggers { try db.execute("DROP TRIGGER \(trigger)") }
            try db.execute("UPDATE clinical_session SET notes = ? WHERE id = ?",
                           [.text("forged after signing"), f.session.id.vaultValue])
            try db.execute("UPDATE session_signature SET content_sha256 = ?", [.text(content.sha256.hex)])
        }
        #expect(try await f.records.sessions.verifySignature(of: f.session.id) == .mismatch)

        let forger = Ed25519.EphemeralSigningKey()
        var attested = f.signature
        attested.contentSHA256 = content.sha256
        let forgedSignature = forger.signature(for: attested.attestation)
        try await pool.write { db in
            try db.execute("UPDATE session_signature SET signer_public_key = ?, signature = ?",
                           [.blob(forger.publicKey), .blob(forgedSignature)])
        }
        #expect(try await f.records.sessions.verifySignature(of: f.session.id) == .signedByAnotherKey)

        try await pool.write { db in
            try db.execute("UPDATE session_signature SET signer_public_key = NULL, signature = NULL")
        }
        #expect(try await f.records.sessions.verifySignature(of: f.session.id) == .sealedOnly)
    }

    @Test("Who signed and when are under the signature: a changed name, license or time no longer verifies")
    func signerAndTimeAreSigned() async throws {
        let f = try await SigningSQLTriggerTests.fixture()
        defer { Task { await f.database.close() } }
        let pool = f.database.pool
        for (column, value) in [("professional_name", VaultValue.text("Dr. Otro")), ("license_number", .text("X-9")),
                                ("signed_at", .integer(1))] {
            let before = try await pool.read { db in
                try db.fetchOne("SELECT \(column) FROM session_signature") { $0.value(at: 0) }
            }
            try await pool.write { db in
                try db.execute("DROP TRIGGER IF EXISTS session_signature_fixed")
                try db.execute("UPDATE session_signature SET \(column) = ?", [value])
            }
            #expect(try await f.records.sessions.verifySignature(of: f.session.id) == .mismatch, "\(column)")
            try await pool.write { db in
                try db.execute("UPDATE session_signature SET \(column) = ?", [try #require(before)])
            }
            #expect(try await f.records.sessions.verifySignature(of: f.session.id) == .verified, "\(column) restored")
        }
    }

    @Test("The same professional's signature verifies on every device of the vault: the key comes from the vault key, not the device")
    func signingKeyFollowsTheVaultKey() async throws {
        try await withTemporaryDirectory { dir in
            let options = Vault.Options(kdf: .fastForTestsOnly,
                                        passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))
            let password = try Password("p")
            let vault = try await Vault.create(at: dir.file("v"), password: password, options: options).vault
            try await vault.professional.save(SigningConformanceTests.professional)
            let patient = try await vault.patients.create(F.patient())
            let session = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: F.now, notes: "n"))
            let signature = try await vault.sessions.sign(session.id, version: session.version)
            await vault.lock()
            let reopened = try await Vault.open(at: dir.file("v"), password: password, options: options)
            #expect(try await reopened.sessions.verifySignature(of: session.id) == .verified)
            #expect(try await reopened.sessions.entry(session.id).trustedSigningKey == signature.signerPublicKey)
            await reopened.lock()
        }
    }

    @Test("A database opened without a vault holds no signing key: signing is refused with locked and writes nothing")
    func signingWithoutAVaultKeyIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let pool = try await VaultDatabase.open(
                at: dir.file("bare.db"), key: SecureBytes.random(count: 32), mode: .createIfMissing,
                migrator: MedVaultSchema.migrator)
            let records = SQLCipherClinicalRecords(pool: pool, clock: SteppingClock().recordClock)
            try await records.professional.save(SigningConformanceTests.professional)
            let patient = try await records.patients.create(F.patient())
            let session = try await records.sessions.create(ClinicalSession(patientID: patient.id, date: F.now, notes: "n"))
            await expectMedVaultError(.locked) { try await records.sessions.sign(session.id, version: session.version) }
            #expect(try await records.sessions.verifySignature(of: session.id) == .unsigned)
            await pool.close()
        }
    }
}
