import Crypto
import Foundation
import Logging
import MedVaultSyncWire
import PostgresNIO

/// The server's PostgreSQL storage: every query the routes run, nothing else.
///
/// Stateless: each call leases a connection from the pool, so several server instances
/// share one database (docs/sync-server.md, "Several instances"). Every result is read
/// to its end (no early return from a row loop), so each lease goes back to the pool
/// with its connection idle.
struct SyncStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Checks that the database answers.
    func ping() async throws {
        _ = try await withConnection { connection in try await connection.guardedQuery("SELECT 1", logger: logger) }
    }

    // MARK: - Challenges

    /// Stores a new challenge for one device of one vault, beside that device's other
    /// pending ones, and drops expired ones.
    ///
    /// Anyone may ask for a challenge for any (vault, device) — the ids are not secret —
    /// so a new one never replaces an earlier one: a stranger's request cannot cancel the
    /// enrolment under way. At most `maximumPending` may be pending per device; past it
    /// the request is refused (429 until the oldest expires), never another one evicted.
    /// Challenges a device asks for to renew its token (`forRenewal`, authenticated by the
    /// token) are counted apart: strangers holding the anonymous ones cannot block a renewal.
    ///
    /// - Returns: The challenge, or `nil` when the device has `maximumPending` already.
    func makeChallenge(vaultID: UUID, deviceID: UUID, lifetimeSeconds: Int, maximumPending: Int,
                       forRenewal: Bool = false) async throws -> Data? {
        var generator = SystemRandomNumberGenerator()
        let challenge = Data((0..<SyncDeviceProof.challengeLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let hash = Self.hash(challenge)
        return try await transaction { connection in
            try await connection.guardedQuery("DELETE FROM challenges WHERE expires_at < now()", logger: logger)
            // Requests for one (vault, device) one at a time: concurrent ones would each
            // count the same rows and overshoot the cap.
            try await connection.guardedQuery(
                "SELECT pg_advisory_xact_lock(hashtextextended(\(vaultID.uuidString + deviceID.uuidString), 0))",
                logger: logger)
            let rows = try await connection.guardedQuery("""
                INSERT INTO challenges (challenge_hash, vault_id, device_id, expires_at, for_renewal)
                SELECT \(hash), \(vaultID), \(deviceID), now() + make_interval(secs => \(Double(lifetimeSeconds))), \(forRenewal)
                WHERE (SELECT count(*) FROM challenges
                       WHERE vault_id = \(vaultID) AND device_id = \(deviceID) AND for_renewal = \(forRenewal)) < \(maximumPending)
                RETURNING 1
                """, logger: logger)
            var stored = false
            for try await _ in rows.decode(Int.self) { stored = true }
            return stored ? challenge : nil
        }
    }

    /// Spends a challenge: true when it existed for these ids and had not expired. It is
    /// deleted either way, in its own statement, so a failed attempt cannot retry it.
    func consumeChallenge(_ challenge: Data, vaultID: UUID, deviceID: UUID) async throws -> Bool {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                DELETE FROM challenges
                WHERE challenge_hash = \(Self.hash(challenge)) AND vault_id = \(vaultID) AND device_id = \(deviceID)
                RETURNING expires_at > now()
                """, logger: logger)
            var valid = false
            for try await fresh in rows.decode(Bool.self) { valid = fresh }
            return valid
        }
    }

    // MARK: - Vaults and devices

    /// Registers a vault with its first device and keyring, spending `invitationHash`'s
    /// invitation in the same transaction when there is one (a registration that fails
    /// leaves it unspent).
    ///
    /// - Throws: ``SyncServerError/vaultExists`` when the vault id is taken;
    ///   ``SyncServerError/registrationClosed`` when the invitation is unknown, spent or
    ///   expired. Nothing is stored then.
    func registerVault(_ request: SyncRegisterRequest, tokenHash: Data, invitationHash: Data?) async throws {
        try await transaction { connection in
            var inviter: UUID?
            if let invitationHash {
                let spent = try await connection.guardedQuery("""
                    UPDATE invitations SET used_by_vault = \(request.vaultID)
                    WHERE invitation_hash = \(invitationHash) AND used_by_vault IS NULL AND expires_at > now()
                    RETURNING vault_id
                    """, logger: logger)
                for try await vaultID in spent.decode(UUID.self) { inviter = vaultID }
                guard inviter != nil else { throw SyncServerError.registrationClosed }
            }
            let inserted = try await connection.guardedQuery("""
                INSERT INTO vaults (vault_id, verification_key, invited_by, epoch, epoch_keys)
                VALUES (\(request.vaultID), \(request.verificationKey), \(inviter), \(Int64(request.epoch ?? 0)),
                        \(request.epochKeys))
                ON CONFLICT (vault_id) DO NOTHING RETURNING 1
                """, logger: logger)
            var created = false
            for try await _ in inserted.decode(Int32.self) { created = true }
            guard created else { throw SyncServerError.vaultExists }
            try await connection.guardedQuery("""
                INSERT INTO devices (vault_id, device_id, token_hash, certificate)
                VALUES (\(request.vaultID), \(request.deviceID), \(tokenHash), \(try request.certificate.map(Self.encode)))
                """, logger: logger)
            try await connection.guardedQuery("""
                INSERT INTO keyrings (vault_id, generation, keyring)
                VALUES (\(request.vaultID), \(request.keyring.generation), \(request.keyring.keyring))
                """, logger: logger)
        }
    }

    /// Throws ``SyncServerError/badToken`` unless the device is still active; inside a
    /// transaction, its row stays share-locked (a concurrent revoke waits for the commit).
    static func requireActive(vaultID: UUID, deviceID: UUID, _ connection: PostgresConnection,
                              _ logger: Logger) async throws {
        let rows = try await connection.guardedQuery("""
            SELECT 1 FROM devices WHERE vault_id = \(vaultID) AND device_id = \(deviceID) AND revoked_at IS NULL
            FOR SHARE
            """, logger: logger)
        var active = false
        for try await _ in rows.decode(Int32.self) { active = true }
        guard active else { throw SyncServerError.badToken }
    }

    /// The vault's device-verification public key, or nil for an unknown vault.
    func verificationKey(vaultID: UUID) async throws -> Data? {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery(
                "SELECT verification_key FROM vaults WHERE vault_id = \(vaultID)", logger: logger)
            var key: Data?
            for try await value in rows.decode(Data.self) { key = value }
            return key
        }
    }

    /// Adds a device to a vault.
    ///
    /// A device id is never given a second token, even to a caller that proves the vault
    /// key: a copy of a vault (a restore, a copied folder) would take the live device's
    /// place. A device whose join answer was lost joins again under a new id
    /// (`SyncEngine.join()` does this by itself).
    ///
    /// - Throws: ``SyncServerError/deviceExists`` when the id is (or was) used there.
    /// Adds a device to a vault that has fewer than `maximumActive` active devices.
    ///
    /// With a `certificate` (checked by the caller against `epoch`'s key), the vault must
    /// still be at `epoch`, under its row lock: a join racing a new epoch fails.
    ///
    /// - Throws: `deviceExists` (409) for an id used before; `quotaExceeded` (403) when
    ///   the vault is at its quota; `badProof` when the vault left `epoch`. Nothing is
    ///   stored then.
    func addDevice(vaultID: UUID, deviceID: UUID, tokenHash: Data, maximumActive: Int,
                   certificate: SyncDeviceCertificate? = nil, epoch: UInt32 = 0) async throws {
        try await transaction { connection in
            // The vault's row, locked: two joins at once cannot both take the last place.
            let current = try await Self.lockEpoch(vaultID: vaultID, connection, logger)
            guard current.epoch == epoch else { throw SyncServerError.badProof }
            let rows = try await connection.guardedQuery("""
                INSERT INTO devices (vault_id, device_id, token_hash, certificate)
                SELECT \(vaultID), \(deviceID), \(tokenHash), \(try certificate.map(Self.encode))
                WHERE (SELECT count(*) FROM devices WHERE vault_id = \(vaultID) AND revoked_at IS NULL) < \(maximumActive)
                ON CONFLICT (vault_id, device_id) DO NOTHING RETURNING 1
                """, logger: logger)
            var added = false
            for try await _ in rows.decode(Int32.self) { added = true }
            guard !added else { return }
            let used = try await connection.guardedQuery(
                "SELECT count(*) FROM devices WHERE vault_id = \(vaultID) AND device_id = \(deviceID)", logger: logger)
            var exists = false
            for try await count in used.decode(Int64.self) { exists = count > 0 }
            throw exists ? SyncServerError.deviceExists : SyncServerError.quotaExceeded
        }
    }

    /// Every device of the vault, in the order they enrolled, and the vault's epoch, read
    /// in one statement (one snapshot: the certificates are of that epoch).
    func devices(vaultID: UUID) async throws -> SyncDeviceList {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                SELECT d.device_id, floor(extract(epoch FROM d.created_at))::bigint,
                       floor(extract(epoch FROM d.last_seen_at))::bigint, d.revoked_at IS NOT NULL, d.sealed_name,
                       d.certificate, v.epoch
                FROM devices d JOIN vaults v ON v.vault_id = d.vault_id
                WHERE d.vault_id = \(vaultID) ORDER BY d.created_at, d.device_id
                """, logger: logger)
            var devices: [SyncDeviceInfo] = []
            var vaultEpoch: Int64 = 0
            for try await (id, registered, seen, revoked, name, certificate, epoch)
                in rows.decode((UUID, Int64, Int64?, Bool, Data?, Data?, Int64).self) {
                devices.append(SyncDeviceInfo(deviceID: id, registeredAt: registered, lastSeenAt: seen, revoked: revoked,
                                              sealedName: name, certificate: try certificate.map(Self.decodeCertificate)))
                vaultEpoch = epoch
            }
            return SyncDeviceList(devices: devices, epoch: UInt32(clamping: vaultEpoch))
        }
    }

    /// Stores an active device's sealed name; `false` when it is not an active device.
    func setName(vaultID: UUID, deviceID: UUID, sealedName: Data) async throws -> Bool {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                UPDATE devices SET sealed_name = \(sealedName)
                WHERE vault_id = \(vaultID) AND device_id = \(deviceID) AND revoked_at IS NULL
                RETURNING device_id
                """, logger: logger)
            var updated = false
            for try await _ in rows.decode(UUID.self) { updated = true }
            return updated
        }
    }

    /// Revokes a device of a vault (idempotent), if the revoking device is still active,
    /// and deletes its unspent invitations.
    ///
    /// Both rows are locked, in device-id order, before the check: of two devices
    /// revoking each other at once, the second to commit finds itself revoked, so a vault
    /// is never left without an active device by its own devices.
    ///
    /// - Returns: false when the vault has no such device.
    /// - Throws: ``SyncServerError/badToken`` when the revoking device was revoked since
    ///   its request was authenticated; ``SyncServerError/rekeyRequired`` in a vault at
    ///   epoch 1 or later, where only a new epoch revokes (``startEpoch(_:vaultID:starter:)``):
    ///   a device token alone cannot lock the others out.
    func revoke(vaultID: UUID, deviceID: UUID, by revoker: UUID) async throws -> Bool {
        try await transaction { connection in
            guard try await Self.lockEpoch(vaultID: vaultID, connection, logger).epoch == 0 else {
                throw SyncServerError.rekeyRequired
            }
            let rows = try await connection.guardedQuery("""
                SELECT device_id, revoked_at IS NULL FROM devices
                WHERE vault_id = \(vaultID) AND device_id IN (\(deviceID), \(revoker)) ORDER BY device_id FOR UPDATE
                """, logger: logger)
            var active: [UUID: Bool] = [:]
            for try await (id, isActive) in rows.decode((UUID, Bool).self) { active[id] = isActive }
            guard active[revoker] == true else { throw SyncServerError.badToken }
            guard active[deviceID] != nil else { return false }
            try await connection.guardedQuery("""
                UPDATE devices SET revoked_at = COALESCE(revoked_at, now()), revoked_by = COALESCE(revoked_by, \(revoker))
                WHERE vault_id = \(vaultID) AND device_id = \(deviceID)
                """, logger: logger)
            // A stolen device's unspent invitations go with it.
            try await connection.guardedQuery("""
                DELETE FROM invitations WHERE vault_id = \(vaultID) AND device_id = \(deviceID) AND used_by_vault IS NULL
                """, logger: logger)
            return true
        }
    }

    // MARK: - Keyrings

    /// The vault's keyring.
    func keyring(vaultID: UUID) async throws -> SyncKeyringBlob? {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                SELECT k.generation, k.keyring, v.epoch FROM keyrings k JOIN vaults v ON v.vault_id = k.vault_id
                WHERE k.vault_id = \(vaultID)
                """, logger: logger)
            var blob: SyncKeyringBlob?
            for try await (generation, keyring, epoch) in rows.decode((Int64, Data, Int64).self) {
                blob = try SyncKeyringBlob(generation: generation, keyring: keyring,
                                           epoch: epoch > 0 ? UInt32(clamping: epoch) : nil)
            }
            return blob
        }
    }

    /// Replaces the keyring if its generation is still the expected one and the device
    /// is still active (it may have been revoked while its request body arrived).
    ///
    /// - Returns: false when the generation moved on (nothing changed).
    /// - Throws: ``SyncServerError/badToken`` when `deviceID` was revoked meanwhile.
    func updateKeyring(vaultID: UUID, deviceID: UUID, update: SyncKeyringUpdate) async throws -> Bool {
        try await transaction { connection in
            try await Self.requireActive(vaultID: vaultID, deviceID: deviceID, connection, logger)
            let rows = try await connection.guardedQuery("""
                UPDATE keyrings SET generation = \(update.keyring.generation), keyring = \(update.keyring.keyring),
                    updated_at = now()
                WHERE vault_id = \(vaultID) AND generation = \(update.expectedGeneration) RETURNING 1
                """, logger: logger)
            var replaced = false
            for try await _ in rows.decode(Int32.self) { replaced = true }
            return replaced
        }
    }

    /// Runs `body` on a pooled connection. Queries go through `guardedQuery`, which never
    /// waits forever on a connection PostgreSQL closed (PostgresConnection+Guarded.swift).
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in try await body(connection) }
    }

    /// Runs `body` in a transaction (BEGIN, COMMIT; ROLLBACK when it throws) and rethrows
    /// its own error, so routes can answer it. BEGIN, COMMIT and ROLLBACK are guarded
    /// queries too: PostgresNIO's `withTransaction` sends them unguarded.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            try await connection.guardedQuery("BEGIN;", logger: logger)
            let result: T
            do {
                result = try await body(connection)
            } catch {
                // The body's error is the answer; a failed ROLLBACK (the connection is
                // gone) rolls back anyway, as PostgreSQL ends the session's transaction.
                _ = try? await connection.guardedQuery("ROLLBACK;", logger: logger)
                throw error
            }
            try await connection.guardedQuery("COMMIT;", logger: logger)
            return result
        }
    }

    static func hash(_ data: Data) -> Data {
        Data(SHA256.hash(data: data))
    }
}
