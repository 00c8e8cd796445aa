import Foundation

extension ClinicalSessionRepository {
    /// Recomputes the SHA-256 of a session's signed content and compares it with its
    /// signature's.
    ///
    /// For example:
    ///
    /// ```swift
    /// guard try await vault.sessions.verifySignature(of: id) != .mismatch else { … }
    /// ```
    ///
    /// - Returns: ``SessionSignatureCheck/unsigned``, ``SessionSignatureCheck/verified``
    ///   or ``SessionSignatureCheck/mismatch`` (the content changed outside MedVault).
    /// - Throws: ``MedVaultError/Code/notFound``.
    public func verifySignature(of id: UUID) async throws -> SessionSignatureCheck {
        try await entry(id).signatureCheck
    }
}
