import Foundation
import Logging
import PostgresNIO

/// Device tokens — lookup, lifetime, renewal — and invitations to register.
extension SyncStore {
    /// The active device a token hash belongs to, or nil (unknown or revoked). With
    /// `includingPrevious` (the renewal route only), the token a renewal replaced counts
    /// too: a device whose renewal answer was lost renews again with it.
    ///
    /// - Parameter lifetimeSeconds: A token older than this is returned with
    ///   ``AuthenticatedDevice/tokenExpired`` set.
    func device(tokenHash: Data, lifetimeSeconds: Int, includingPrevious: Bool = false) async throws
        -> AuthenticatedDevice? {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                SELECT vault_id, device_id, token_issued_at <= now() - make_interval(secs => \(Double(lifetimeSeconds)))
                FROM devices
                WHERE (token_hash = \(tokenHash) OR (\(includingPrevious) AND previous_token_hash = \(tokenHash)))
                  AND revoked_at IS NULL
                """, logger: logger)
            var device: AuthenticatedDevice?
            for try await (vaultID, deviceID, expired) in rows.decode((UUID, UUID, Bool).self) {
                device = AuthenticatedDevice(vaultID: vaultID, deviceID: deviceID, tokenExpired: expired)
            }
            return device
        }
    }

    /// Replaces an active device's token with `newHash`, issued now, when `presentedHash`
    /// is its token or the one its last renewal replaced. The replaced token is kept for
    /// a renewal only (``device(tokenHash:lifetimeSeconds:includingPrevious:)``).
    ///
    /// - Throws: ``SyncServerError/badToken`` when the device was revoked, or renewed
    ///   with another token, since the request was authenticated. Nothing changes then.
    func renewToken(vaultID: UUID, deviceID: UUID, presentedHash: Data, newHash: Data) async throws {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                UPDATE devices
                SET previous_token_hash = CASE WHEN token_hash = \(presentedHash) THEN token_hash ELSE previous_token_hash END,
                    token_hash = \(newHash), token_issued_at = now()
                WHERE vault_id = \(vaultID) AND device_id = \(deviceID) AND revoked_at IS NULL
                  AND (token_hash = \(presentedHash) OR previous_token_hash = \(presentedHash))
                RETURNING 1
                """, logger: logger)
            var renewed = false
            for try await _ in rows.decode(Int32.self) { renewed = true }
            guard renewed else { throw SyncServerError.badToken }
        }
    }

    /// Stores a new invitation minted by a device of a vault that holds fewer than
    /// `maximumPending` unused, unexpired ones; drops the vault's expired ones.
    ///
    /// - Returns: false when the vault is at `maximumPending` (nothing stored).
    /// - Throws: ``SyncServerError/badToken`` when the device was revoked meanwhile.
    func makeInvitation(hash: Data, vaultID: UUID, deviceID: UUID, lifetimeSeconds: Int,
                        maximumPending: Int) async throws -> Bool {
        try await transaction { connection in
            // The vault's row, locked: two requests at once cannot both take the last place.
            try await connection.guardedQuery("SELECT 1 FROM vaults WHERE vault_id = \(vaultID) FOR UPDATE", logger: logger)
            try await Self.requireActive(vaultID: vaultID, deviceID: deviceID, connection, logger)
            try await connection.guardedQuery(
                "DELETE FROM invitations WHERE vault_id = \(vaultID) AND expires_at <= now()", logger: logger)
            let rows = try await connection.guardedQuery("""
                INSERT INTO invitations (invitation_hash, vault_id, device_id, expires_at)
                SELECT \(hash), \(vaultID), \(deviceID), now() + make_interval(secs => \(Double(lifetimeSeconds)))
                WHERE (SELECT count(*) FROM invitations WHERE vault_id = \(vaultID) AND used_by_vault IS NULL)
                      < \(maximumPending)
                RETURNING 1
                """, logger: logger)
            var stored = false
            for try await _ in rows.decode(Int32.self) { stored = true }
            return stored
        }
    }
}

/// The device a request's bearer token belongs to.
struct AuthenticatedDevice: Sendable, Hashable {
    let vaultID: UUID
    let deviceID: UUID
    /// The token is older than the server's token lifetime: only the renewal route
    /// accepts it.
    var tokenExpired = false
}
