import Foundation
import MedVault
import MedVaultCore
import MedVaultSyncWire

/// Device tokens that expire, and invitations (docs/sync.md, "Device tokens").
///
/// A server may give its tokens a lifetime (`MEDVAULT_SYNC_TOKEN_LIFETIME_SECONDS`). A
/// token past it — or one a renewal replaced, which another process of this device may
/// still hold — is refused with `tokenExpired`; the engine then takes the newest stored
/// token, or renews, sending the token *and* a `.renew` proof of the vault key, and runs
/// the call again. A thief of a token alone loses it at the latest when it expires; the
/// device's renewal ends a stolen copy at once.
extension SyncEngine {
    /// Replaces this device's token at the server with a new one, proving the vault key
    /// with the current token: the old token stops working at once (for an app that
    /// suspects it leaked, or on a schedule). ``sync()`` renews an expired token by itself.
    ///
    /// - Throws: `invalidArgument` before ``register()`` or ``join()``, or for a transport
    ///   that does not renew tokens; `unauthorized` when the server refuses the proof or
    ///   the token (a revoked device); transport errors. The stored token is replaced only
    ///   after the server issued the new one.
    public func renewDeviceToken() async throws {
        _ = try await renewedCredentials(replacing: try await requireCredentials())
    }

    /// Mints a single-use invitation for a colleague to register a new vault at this
    /// server, when the server registers only invited vaults
    /// (`MEDVAULT_SYNC_REGISTRATION_INVITATIONS=1`): the new vault's first device sets it
    /// as `HTTPSyncTransport.Configuration.invitation` before ``register()``.
    ///
    /// - Returns: The invitation and its lifetime.
    /// - Throws: `invalidArgument` before ``register()`` or ``join()``; `notFound` when the
    ///   server does not issue invitations; `rateLimited` when the vault holds the
    ///   server's maximum of unused ones; transport errors.
    public func makeInvitation() async throws -> SyncInvitation {
        try await authenticated { try await transport.invitation(as: $0) }
    }

    /// Runs `body` with this device's credentials; when the server says the token
    /// expired, renews it and runs `body` once more with the new one.
    func authenticated<T: Sendable>(_ body: (SyncCredentials) async throws -> T) async throws -> T {
        let credentials = try await requireCredentials()
        do {
            return try await body(credentials)
        } catch let error as MedVaultError where error.code == .tokenExpired {
            return try await body(try await renewedCredentials(replacing: credentials))
        }
    }

    /// Credentials with a token newer than `stale`'s: renewed at the server, or already
    /// renewed by a concurrent pass (which this one waits for rather than sending the
    /// stale token, which the server no longer knows).
    private func renewedCredentials(replacing stale: SyncCredentials) async throws -> SyncCredentials {
        if let running = tokenRenewal { return try await running.value }
        let task = Task { try await self.renew(stale) }
        tokenRenewal = task
        defer { tokenRenewal = nil }
        return try await task.value
    }

    private func renew(_ stale: SyncCredentials) async throws -> SyncCredentials {
        let stored = try await requireCredentials()
        guard stored.deviceToken == stale.deviceToken else { return stored }
        // A certified device proves with its own key, which still works after an epoch it
        // has not adopted yet replaced the vault's; a device of an earlier build (or one
        // whose server predates epochs and refuses that proof) with the vault's.
        let (certified, deviceKey) = try await vault.database.read { db in
            (try SyncEpochRecord.certifiedEpoch(db), try SyncEpochRecord.deviceKey(db))
        }
        if certified != nil, let deviceKey {
            do {
                return try await renew(stored) { message in try deviceKey.sign(message) }
            } catch let error as MedVaultError where error.code == .unauthorized {
                // Tried once more below, with the vault's current key.
            }
        }
        return try await renew(stored) { message in
            try await self.vault.withSyncKeys { keys in try keys.signForDevice(message) }
        }
    }

    private func renew(_ stored: SyncCredentials,
                       signing: ([UInt8]) async throws -> [UInt8]) async throws -> SyncCredentials {
        let challenge = try await transport.tokenChallenge(as: stored)
        let origin = transport.proofOrigin
        let message = SyncDeviceProof.message(.renew, challenge: challenge.challenge, vaultID: stored.vaultID,
                                              deviceID: stored.deviceID, boundTo: origin)
        let signature = try await signing(Array(message))
        let token: SyncDeviceToken
        do {
            token = try await transport.renewToken(
                try MedVaultError.fromWire {
                    try SyncTokenRenewalRequest(challenge: challenge.challenge, signature: Data(signature), origin: origin)
                },
                as: stored)
        } catch let error as MedVaultError where error.code == .conflict {
            // Renewed moments ago with this token, by another process of this device
            // (whose answer it saved, or will) or by this one (whose answer was lost): the
            // newest stored token, if there is one; else the next pass renews once the
            // server lets it.
            let latest = try await requireCredentials()
            guard latest.deviceToken != stored.deviceToken else { throw error }
            return latest
        }
        let renewed = SyncCredentials(vaultID: stored.vaultID, deviceID: stored.deviceID,
                                      deviceToken: token.deviceToken)
        try await save(renewed)
        return renewed
    }
}
