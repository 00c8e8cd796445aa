import Foundation
import MedVaultCore

// Signing and addenda (issue #18). Each operation's SQL is a static function on a
// connection, like the other session operations, so a unit of work (and, later, the
// audit trail's append in the same transaction) can call it.
extension SQLCipherClinicalSessionRepository {
    @discardableResult
    public func sign(_ id: UUID, version: Int64) async throws -> SessionSignature {
        let clock = clock
        return try await pool.write { db in try Self.sign(id, version: version, clock: clock, in: db) }
    }

    @discardableResult
    public func addAddendum(to sessionID: UUID, reason: String, text: String) async throws -> SessionAddendum {
        let clock = clock
        return try await pool.write { db in
            try Self.addAddendum(to: sessionID, reason: reason, text: text, clock: clock, in: db)
        }
    }

    public func entry(_ id: UUID) async throws -> SessionHistoryEntry {
        try await pool.read { db in try Self.entry(Self.fetch(id, db), in: db) }
    }

    public func signatureRequiredForCompletion() async throws -> Bool {
        try await pool.read { db in try Self.signatureRequired(in: db) }
    }

    public func setSignatureRequiredForCompletion(_ required: Bool) async throws {
        try await pool.write { db in
            try db.execute("UPDATE signing_policy SET require_before_completion = ? WHERE id = 1",
                           [.integer(required ? 1 : 0)])
        }
    }

    // MARK: - Operations on a connection

    static func isSigned(_ sessionID: UUID, in db: DatabaseConnection) throws -> Bool {
        try db.fetchOne("SELECT 1 FROM session_signature WHERE session_id = ?", [sessionID.vaultValue]) { _ in true }
            ?? false
    }

    static func signatureRequired(in db: DatabaseConnection) throws -> Bool {
        try db.fetchOne("SELECT require_before_completion FROM signing_policy WHERE id = 1") { try $0[0] as Bool }
            ?? false
    }

    static func signature(of sessionID: UUID, in db: DatabaseConnection) throws -> SessionSignature? {
        try db.fetchOne(SigningRows.selectSignature, [sessionID.vaultValue]) { try SigningRows.signature($0) }
    }

    static func addenda(of sessionID: UUID, in db: DatabaseConnection) throws -> [SessionAddendum] {
        try db.fetchAll(SigningRows.selectAddenda, [sessionID.vaultValue]) { try SigningRows.addendum($0) }
    }

    /// `session` with its diagnoses, signature and addenda, and the key this vault signs
    /// with for the signing professional (a signature under another is not `verified`).
    static func entry(_ session: ClinicalSession, in db: DatabaseConnection) throws -> SessionHistoryEntry {
        let signature = try signature(of: session.id, in: db)
        return SessionHistoryEntry(session: session, diagnoses: try SQLCipherDiagnosisRepository.ofSession(session.id, db),
                                   signature: signature, addenda: try addenda(of: session.id, in: db),
                                   trustedSigningKey: try trustedKey(for: signature, in: db))
    }

    /// The public key this vault derives for `signature`'s professional; `nil` without a
    /// signature, or on a pool opened without a vault.
    static func trustedKey(for signature: SessionSignature?, in db: DatabaseConnection) throws -> Data? {
        guard let signature, let root = db.changeLog.audit.keys?.signingRoot else { return nil }
        return try root.publicKey(professionalID: signature.professionalID)
    }

    static func sign(_ id: UUID, version: Int64, clock: RecordClock, in db: DatabaseConnection) throws
        -> SessionSignature
    {
        let session = try fetch(id, db)
        let signature = try SessionSigningRule.signature(
            of: session, diagnoses: try SQLCipherDiagnosisRepository.ofSession(id, db), version: version,
            alreadySigned: try isSigned(id, in: db),
            by: try SQLCipherProfessionalRepository.get(in: db), at: clock.now(),
            signer: db.changeLog.audit.keys?.signingRoot)
        try db.execute(SigningRows.insertSignature, SigningRows.SignatureColumn.arguments(signature))
        try db.changeLog.append([signature.change])
        return signature
    }

    static func addAddendum(to sessionID: UUID, reason: String, text: String, clock: RecordClock,
                            in db: DatabaseConnection) throws -> SessionAddendum {
        _ = try fetch(sessionID, db)
        let addendum = try SessionSigningRule.addendum(
            to: sessionID, signed: try isSigned(sessionID, in: db), reason: reason, text: text,
            by: try SQLCipherProfessionalRepository.get(in: db), at: clock.now())
        try db.execute(SigningRows.insertAddendum, SigningRows.AddendumColumn.arguments(addendum))
        try SessionNoteIndex.reindexSession(ofAddendum: addendum.id, in: db)
        try db.changeLog.append(addendum, .insert)
        return addendum
    }
}
