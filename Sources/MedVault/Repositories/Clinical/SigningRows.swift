import Foundation
import MedVaultCore

/// How signatures and addenda map to `session_signature` and `session_addendum`
/// (see `SigningSchema`), read by column name.
enum SigningRows {
    enum SignatureColumn: Int32, RecordColumn {
        case sessionId, professionalId, professionalName, licenseNumber, signedAt, contentSha256, encodingVersion,
             signerPublicKey, signature

        static func value(of s: SessionSignature, _ column: Self) -> any VaultValueConvertible {
            switch column {
            case .sessionId: s.sessionID
            case .professionalId: s.professionalID
            case .professionalName: s.professionalName
            case .licenseNumber: s.licenseNumber
            case .signedAt: s.signedAt
            case .contentSha256: s.contentSHA256.hex
            case .encodingVersion: Int64(s.encodingVersion)
            case .signerPublicKey: s.signerPublicKey
            case .signature: s.signatureBytes
            }
        }
    }

    enum AddendumColumn: Int32, RecordColumn {
        case id, sessionId, authorId, authorName, createdAt, reason, text

        static func value(of a: SessionAddendum, _ column: Self) -> any VaultValueConvertible {
            switch column {
            case .id: a.id
            case .sessionId: a.sessionID
            case .authorId: a.authorID
            case .authorName: a.authorName
            case .createdAt: a.createdAt
            case .reason: a.reason
            case .text: a.text
            }
        }
    }

    static let insertSignature = """
        INSERT INTO session_signature (\(SignatureColumn.selection)) VALUES (\(SignatureColumn.placeholders))
        """
    static let insertAddendum = """
        INSERT INTO session_addendum (\(AddendumColumn.selection)) VALUES (\(AddendumColumn.placeholders))
        """
    static let selectSignature = "SELECT \(SignatureColumn.selection) FROM session_signature WHERE session_id = ?"
    static let selectAddenda = """
        SELECT \(AddendumColumn.selection) FROM session_addendum WHERE session_id = ? ORDER BY position
        """

    static func signature(_ row: VaultRow) throws -> SessionSignature {
        typealias C = SignatureColumn
        let hex: String = try row[C.contentSha256]
        let digest: SHA256Digest
        do { digest = try SHA256Digest(hex: hex) } catch {
            throw MedVaultError(.corrupted, reason: "a stored signature digest is malformed")
        }
        let version: Int64 = try row[C.encodingVersion]
        return SessionSignature(
            sessionID: try row[C.sessionId], professionalID: try row[C.professionalId],
            professionalName: try row[C.professionalName], licenseNumber: try row[C.licenseNumber],
            signedAt: try row[C.signedAt], contentSHA256: digest, encodingVersion: Int(version),
            signerPublicKey: try row[C.signerPublicKey], signatureBytes: try row[C.signature])
    }

    static func addendum(_ row: VaultRow) throws -> SessionAddendum {
        typealias C = AddendumColumn
        return SessionAddendum(
            id: try row[C.id], sessionID: try row[C.sessionId], authorID: try row[C.authorId],
            authorName: try row[C.authorName], createdAt: try row[C.createdAt], reason: try row[C.reason],
            text: try row[C.text])
    }
}
