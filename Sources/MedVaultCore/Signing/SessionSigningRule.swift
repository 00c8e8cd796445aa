import Foundation

/// The rules of signed sessions, written once for both stores.
///
/// - A session is signed once, by the vault's professional, at its current version.
/// - Once signed, its chief complaint, notes and treatment plan, and its diagnoses'
///   clinical notes, never change; it is never deleted; no diagnosis is added to it.
///   Corrections are addenda (``SessionAddendum``), which need a signed session.
/// - When the vault requires it, a session is signed before it is marked completed
///   (and so is never created completed).
///
/// Each check throws before anything is written. The SQLCipher store also enforces the
/// immutability with triggers, so raw SQL on the open database cannot change signed
/// content either.
package enum SessionSigningRule {
    /// The fields a signature seals, in the order the errors name them.
    static func sealedFields(of s: ClinicalSession) -> [(String, String?)] {
        [("chiefComplaint", s.chiefComplaint), ("notes", s.notes), ("treatmentPlan", s.treatmentPlan)]
    }

    package static func sealed(_ field: String) -> MedVaultError {
        MedVaultError(.immutable, field: field, reason: "a signed session's content never changes; add an addendum")
    }

    package static let alreadySigned = MedVaultError(.immutable, field: "signature",
                                                     reason: "the session is signed already")
    package static let signedSessionKept = MedVaultError(.immutable, field: "signature",
                                                         reason: "a signed session is part of the medical record")
    package static let noProfessional = MedVaultError(.notFound, field: "professional",
                                                      reason: "the vault has no professional to sign")
    /// Signing without a signing key: a store opened without a vault (a bare
    /// `VaultDatabase`) cannot make a signature that proves who signed, so it makes none.
    package static let noSigningKey = MedVaultError(.locked, reason: "signing needs the vault's key: sign through an unlocked Vault")
    package static let unsignedAddendum = MedVaultError(.validation, field: "sessionID",
                                                        reason: "only a signed session takes addenda; edit it instead")
    package static let unsignedCompletion = MedVaultError(
        .validation, field: "signature", reason: "this vault requires a session to be signed before it is completed")

    /// Checks a new session: refused completed when signing is required first.
    package static func checkCreate(_ session: ClinicalSession, signatureRequired: Bool) throws {
        if signatureRequired, session.status == .completed { throw unsignedCompletion }
    }

    /// Checks an update of `stored` (signed or not) to `value`.
    package static func checkUpdate(from stored: ClinicalSession, to value: ClinicalSession, signed: Bool,
                                    signatureRequired: Bool) throws {
        if signed {
            for ((field, old), (_, new)) in zip(sealedFields(of: stored), sealedFields(of: value)) where old != new {
                throw sealed(field)
            }
        }
        if signatureRequired, !signed, value.status == .completed, stored.status != .completed {
            throw unsignedCompletion
        }
    }

    /// Checks an update of a diagnosis of a (signed or not) session.
    package static func checkDiagnosisUpdate(from stored: Diagnosis, to value: Diagnosis, sessionSigned: Bool) throws {
        if sessionSigned, stored.clinicalNotes != value.clinicalNotes { throw sealed("clinicalNotes") }
    }

    /// Checks a new diagnosis of a (signed or not) session.
    package static func checkDiagnosisCreate(sessionSigned: Bool) throws {
        if sessionSigned { throw sealed("sessionID") }
    }

    /// The signature of `session` with `diagnoses` by `professional` at `now`.
    ///
    /// - Throws: `conflict` when `version` is not the stored version; `immutable`
    ///   (field `signature`) when already signed; `notFound` (field `professional`)
    ///   without a professional.
    package static func signature(
        of session: ClinicalSession, diagnoses: [Diagnosis], version: Int64, alreadySigned signed: Bool,
        by professional: Professional?, at now: Date, signer: (any SessionSigner)?
    ) throws -> SessionSignature {
        guard session.version == version else { throw MedVaultError.recordConflict }
        guard !signed else { throw alreadySigned }
        guard let professional else { throw noProfessional }
        guard let signer else { throw noSigningKey }
        var signature = SessionSignature(
            sessionID: session.id, professionalID: professional.id, professionalName: professional.fullName,
            licenseNumber: professional.licenseNumber, signedAt: now.truncatedToMilliseconds,
            contentSHA256: SessionSigningContent(session: session, diagnoses: diagnoses).sha256)
        let signed = try signer.sign(signature.attestation, professionalID: professional.id)
        signature.signerPublicKey = signed.publicKey
        signature.signatureBytes = signed.signature
        return signature
    }

    /// A new addendum to `sessionID` by `professional` at `now`, validated.
    ///
    /// - Throws: `validation` (field `sessionID`) when the session is not signed;
    ///   `notFound` (field `professional`) without a professional; `validation` for a
    ///   blank or too long reason or text.
    package static func addendum(
        to sessionID: UUID, signed: Bool, reason: String, text: String, by professional: Professional?, at now: Date
    ) throws -> SessionAddendum {
        guard signed else { throw unsignedAddendum }
        guard let professional else { throw noProfessional }
        let addendum = SessionAddendum(sessionID: sessionID, authorID: professional.id,
                                       authorName: professional.fullName, createdAt: now.truncatedToMilliseconds,
                                       reason: reason, text: text)
        try ClinicalValidation.throwFirst(addendum.validationErrors())
        return addendum
    }

    /// Whether `signature` still seals `session` with `diagnoses`, and whether its
    /// Ed25519 signature is by `trustedKey` (the key this vault derives for the signing
    /// professional; `nil` when the store holds no key).
    package static func check(_ signature: SessionSignature?, session: ClinicalSession,
                              diagnoses: [Diagnosis], trustedKey: Data?) -> SessionSignatureCheck {
        guard let signature else { return .unsigned }
        let encoded = SessionSigningContent(session: session, diagnoses: diagnoses).encoded()
        guard signature.encodingVersion == SessionSigningContent.encodingVersion,
              signature.sessionID == session.id, SHA256Digest.of(encoded) == signature.contentSHA256
        else { return .mismatch }
        guard let publicKey = signature.signerPublicKey, let bytes = signature.signatureBytes else {
            // A key without a signature, or the reverse: not what any store writes.
            return signature.signerPublicKey == nil && signature.signatureBytes == nil ? .sealedOnly : .mismatch
        }
        guard Ed25519.isValidSignature([UInt8](bytes), of: [UInt8](signature.attestation), publicKey: [UInt8](publicKey))
        else { return .mismatch }
        return publicKey == trustedKey ? .verified : .signedByAnotherKey
    }
}
