import Foundation
import Logging
import PostgresNIO

/// Device tokens — lookup, lifetime, renewal — and invitations to register.
extension SyncStore {
    /// The active device a token hash belongs to — its current token, or the one its last
    /// renewal replaced (``AuthenticatedDevice/tokenReplaced``) — or nil (unknown or revoked).
    ///
    /// - Parameter lifetimeSeconds: A current token older than this is returned with
    ///   ``AuthenticatedDevice/tokenExpired`` set.
    func device(tokenHash: Data, lifetimeSeconds: Int) async throws -> AuthenticatedDevice? {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                SELECT vault_id, device_id, token_hash <> \(tokenHash),
                       token_issued_at <= now() - make_interval(secs => \(Double(lifetimeSeconds))),
                       last_seen_at IS NULL OR last_seen_at < now() - interval '60 seconds'
                FROM devices
                WHERE (token_hash = \(tokenHash) OR previous_token_hash = \(tokenHash)) AND revoked_at IS NULL
                """, logger: logger)
            var device: AuthenticatedDevice?
            var stale = false
            for try await (vaultID, deviceID, replaced, expired, unseen) in rows.decode((UUID, UUID, Bool, Bool, Bool).self) {
                device = AuthenticatedDevice(vaultID: vaultID, deviceID: deviceID, tokenExpired: expired,
                                             tokenReplaced: replaced)
                stale = unseen
            }
            // "Last seen" to the minute: one write a minute per device, not one per request;
            // best effort (a full disk or a read-only standby must not fail a read).
            if let device, stale {
                do {
                    try await connection.guardedQuery("""
                        UPDATE devices SET last_seen_at = now()
                        WHERE vault_id = \(device.vaultID) AND device_id = \(device.deviceID)
                        """, logger: logger)
                } catch {
                    logger.debug("last seen not recorded")
                }
            }
            return device
        }
    }

    /// Replaces an active device's token with `newHash`, issued now, when `presentedHash`
    /// is its token, or the one its last renewal replaced and that renewal is older than
    /// `settleSeconds`. The replaced token is kept for a renewal only.
    ///
    /// The settling time protects a renewal that just succeeded: another process of the
    /// same device that still holds the replaced token (it read it before the renewal was
    /// saved) would otherwise renew again and orphan the token the first one saved. A
    /// device whose renewal answer was lost renews once the time has passed.
    ///
    /// - Throws: ``SyncServerError/tokenRecentlyRenewed`` (409) for the replaced token
    ///   within `settleSeconds`; ``SyncServerError/badToken`` when the device was revoked,
    ///   or renewed twice, since the request was authenticated. Nothing changes then.
    func renewToken(vaultID: UUID, deviceID: UUID, presentedHash: Data, newHash: Data,
                    settleSeconds: Int) async throws {
        try await transaction { connection in
            let rows = try await connection.guardedQuery("""
                SELECT token_hash = \(presentedHash),
                       token_issued_at <= now() - make_interval(secs => \(Double(settleSeconds)))
                FROM devices
                WHERE vault_id = \(vaultID) AND device_id = \(deviceID) AND revoked_at IS NULL
                  AND (token_hash = \(presentedHash) OR previous_token_hash = \(presentedHash))
                FOR UPDATE
                """, logger: logger)
            var found: (current: Bool, settled: Bool)?
            for try await (current, settled) in rows.decode((Bool, Bool).self) { found = (current, settled) }
            guard let found else { throw SyncServerError.badToken }
            guard found.current || found.settled else { throw SyncServerError.tokenRecentlyRenewed }
            try await connection.guardedQuery("""
                UPDATE devices
                SET previous_token_hash = CASE WHEN \(found.current) THEN token_hash ELSE previous_token_hash END,
                    token_hash = \(newHash), token_issued_at = now()
                WHERE vault_id = \(vaultID) AND device_id = \(deviceID)
                """, logger: logger)
        }
    }

    /// Stores a new invitation minted by a device of a vault registered with the
    /// deployment secret (not by invitation: the right to invite is not passed on) that
    /// holds fewer than `maximumPending` unused, unexpired ones; drops the vault's expired,
    /// unused ones (spent ones stay: they record who invited whom).
    ///
    /// - Returns: false when the vault is at `maximumPending` (nothing stored).
    /// - Throws: ``SyncServerError/invitationsNotAllowed`` for a vault registered by
    ///   invitation; ``SyncServerError/badToken`` when the device was revoked meanwhile.
    func makeInvitation(hash: Data, vaultID: UUID, deviceID: UUID, lifetimeSeconds: Int,
                        maximumPending: Int) async throws -> Bool {
        try await transaction { connection in
            // The vault's row, locked: two requests at once cannot both take the last place.
            let vault = try await connection.guardedQuery(
                "SELECT invited_by IS NULL FROM vaults WHERE vault_id = \(vaultID) FOR UPDATE", logger: logger)
            var mayInvite = false
            for try await value in vault.decode(Bool.self) { mayInvite = value }
            guard mayInvite else { throw SyncServerError.invitationsNotAllowed }
            try await Self.requireActive(vaultID: vaultID, deviceID: deviceID, connection, logger)
            try await connection.guardedQuery("""
                DELETE FROM invitations WHERE vault_id = \(vaultID) AND used_by_vault IS NULL AND expires_at <= now()
                """, logger: logger)
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
    /// The token is older than the server's token lifetime.
    var tokenExpired = false
    /// The token is the one the device's last renewal replaced.
    var tokenReplaced = false

    /// Whether only the renewal routes accept the token: expired, or replaced.
    var needsRenewal: Bool { tokenExpired || tokenReplaced }
}
