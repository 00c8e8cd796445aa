import Foundation

/// The answer to `POST /v1/vaults/{vaultId}/invitations`: a single-use invitation to
/// register one new vault at a server that registers only invited vaults.
///
/// An enrolled device of an existing vault mints it (a clinic inviting a colleague's
/// practice); the new vault's first device sends it in `MedVault-Invitation` with its
/// register request. The server keeps only its SHA-256, spends it with the registration
/// (a failed one leaves it unspent) and refuses it after ``expiresInSeconds``.
public struct SyncInvitation: Sendable, Hashable, Codable {
    /// The invitation: 32 random bytes in base64url without padding (43 characters).
    public let invitation: String
    /// Seconds from the response until the server refuses the invitation.
    public let expiresInSeconds: Int

    /// Creates an invitation value.
    public init(invitation: String, expiresInSeconds: Int) {
        self.invitation = invitation
        self.expiresInSeconds = expiresInSeconds
    }
}
