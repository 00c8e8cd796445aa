import Foundation
import Logging
import MedVaultSyncWire
import PostgresNIO

/// Sync epochs (docs/sync.md, "Epochs"): device certificates, the start of a new epoch
/// with its revocations and packages, and what a device joining with the recovery kit reads.
extension SyncStore {
    /// A vault's current epoch and the authority key of that epoch.
    struct VaultEpoch: Sendable {
        let epoch: UInt32
        let verificationKey: Data
    }

    /// The vault's epoch and verification key, or `nil` for an unknown vault.
    func vaultEpoch(vaultID: UUID) async throws -> VaultEpoch? {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery(
                "SELECT epoch, verification_key FROM vaults WHERE vault_id = \(vaultID)", logger: logger)
            var found: VaultEpoch?
            for try await (epoch, key) in rows.decode((Int64, Data).self) {
                found = VaultEpoch(epoch: UInt32(clamping: epoch), verificationKey: key)
            }
            return found
        }
    }

    /// The device's stored certificate, or `nil`.
    func certificate(vaultID: UUID, deviceID: UUID) async throws -> SyncDeviceCertificate? {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery(
                "SELECT certificate FROM devices WHERE vault_id = \(vaultID) AND device_id = \(deviceID)", logger: logger)
            var stored: Data?
            for try await value in rows.decode(Data?.self) { stored = value }
            return try stored.map(Self.decodeCertificate)
        }
    }

    /// Stores an active device's certificate when it is of the vault's current epoch and
    /// verifies under the vault's current key, checked under the vault's row lock (an epoch
    /// started meanwhile replaces both).
    ///
    /// - Throws: ``SyncServerError/badProof`` when it does not verify or is of another
    ///   epoch; ``SyncServerError/badToken`` when the device was revoked meanwhile.
    func setCertificate(_ certificate: SyncDeviceCertificate, vaultID: UUID) async throws {
        try await transaction { connection in
            let current = try await Self.lockEpoch(vaultID: vaultID, connection, logger)
            try await Self.requireActive(vaultID: vaultID, deviceID: certificate.deviceID, connection, logger)
            guard certificate.epoch == current.epoch,
                  Self.verify(certificate.signature, certificate.message(vaultID: vaultID), current.verificationKey) else {
                throw SyncServerError.badProof
            }
            try await connection.guardedQuery("""
                UPDATE devices SET certificate = \(try Self.encode(certificate))
                WHERE vault_id = \(vaultID) AND device_id = \(certificate.deviceID)
                """, logger: logger)
        }
    }

    /// Starts the vault's next epoch for `request`, sent by the active device `starter`, in
    /// one transaction under the vault's row lock: revokes, replaces the verification key,
    /// the certificates, the keyring and the sealed epoch keys, and stores the packages.
    ///
    /// - Throws: ``SyncServerError/epochConflict`` when the epoch is not the current + 1 or
    ///   the devices named are not exactly the remaining ones (each remaining device, the
    ///   starter included, a new certificate and a package; the revoked ones active, other
    ///   than the starter); ``SyncServerError/badProof`` when the authorisation, the starter's
    ///   certificate or a new certificate does not verify; ``SyncServerError/staleGeneration``
    ///   when the keyring moved; ``SyncServerError/badToken`` when `starter` was revoked.
    ///   Nothing changes then.
    func startEpoch(_ request: SyncRekeyRequest, vaultID: UUID, starter: UUID) async throws {
        try await transaction { connection in
            let current = try await Self.lockEpoch(vaultID: vaultID, connection, logger)
            guard current.epoch < UInt32.max, request.epoch == current.epoch + 1 else { throw SyncServerError.epochConflict }
            let authorization = SyncRekeyRequest.authorizationMessage(
                vaultID: vaultID, epoch: request.epoch, verificationKey: request.verificationKey,
                revoked: request.revoked, signer: starter)
            let signer = request.signerCertificate
            guard Self.verify(request.authorization, authorization, current.verificationKey),
                  signer.deviceID == starter, signer.epoch == current.epoch,
                  Self.verify(signer.signature, signer.message(vaultID: vaultID), current.verificationKey) else {
                throw SyncServerError.badProof
            }
            let rows = try await connection.guardedQuery("""
                SELECT device_id FROM devices WHERE vault_id = \(vaultID) AND revoked_at IS NULL ORDER BY device_id FOR UPDATE
                """, logger: logger)
            var active = Set<UUID>()
            for try await id in rows.decode(UUID.self) { active.insert(id) }
            guard active.contains(starter) else { throw SyncServerError.badToken }
            let revoked = Set(request.revoked)
            let remaining = active.subtracting(revoked)
            guard revoked.isSubset(of: active), !revoked.contains(starter),
                  Set(request.certificates.map(\.deviceID)) == remaining,
                  Set(request.packages.map(\.deviceID)) == remaining else {
                throw SyncServerError.epochConflict
            }
            for certificate in request.certificates {
                guard certificate.epoch == request.epoch,
                      Self.verify(certificate.signature, certificate.message(vaultID: vaultID), request.verificationKey) else {
                    throw SyncServerError.badProof
                }
            }
            let replaced = try await connection.guardedQuery("""
                UPDATE keyrings SET generation = \(request.keyring.keyring.generation), keyring = \(request.keyring.keyring.keyring),
                    updated_at = now()
                WHERE vault_id = \(vaultID) AND generation = \(request.keyring.expectedGeneration) RETURNING 1
                """, logger: logger)
            var keyringReplaced = false
            for try await _ in replaced.decode(Int32.self) { keyringReplaced = true }
            guard keyringReplaced else { throw SyncServerError.staleGeneration }
            for id in revoked {
                try await connection.guardedQuery("""
                    UPDATE devices SET revoked_at = now(), revoked_by = \(starter), certificate = NULL
                    WHERE vault_id = \(vaultID) AND device_id = \(id)
                    """, logger: logger)
                try await connection.guardedQuery("""
                    DELETE FROM invitations WHERE vault_id = \(vaultID) AND device_id = \(id) AND used_by_vault IS NULL
                    """, logger: logger)
            }
            for certificate in request.certificates {
                try await connection.guardedQuery("""
                    UPDATE devices SET certificate = \(try Self.encode(certificate))
                    WHERE vault_id = \(vaultID) AND device_id = \(certificate.deviceID)
                    """, logger: logger)
            }
            try await connection.guardedQuery("""
                UPDATE vaults SET epoch = \(Int64(request.epoch)), verification_key = \(request.verificationKey),
                    epoch_keys = \(request.epochKeys)
                WHERE vault_id = \(vaultID)
                """, logger: logger)
            try await connection.guardedQuery("""
                INSERT INTO epochs (vault_id, epoch, started_by, signer_certificate)
                VALUES (\(vaultID), \(Int64(request.epoch)), \(starter), \(try Self.encode(signer)))
                """, logger: logger)
            for package in request.packages {
                try await connection.guardedQuery("""
                    INSERT INTO epoch_packages (vault_id, epoch, device_id, sealed, signature)
                    VALUES (\(vaultID), \(Int64(request.epoch)), \(package.deviceID), \(package.sealed), \(package.signature))
                    """, logger: logger)
            }
        }
    }

    /// The device's package of `epoch`, with the certificate of the device that started it.
    func epochPackage(vaultID: UUID, deviceID: UUID, epoch: UInt32) async throws -> SyncEpochPackage? {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                SELECT p.sealed, p.signature, e.signer_certificate FROM epoch_packages p
                JOIN epochs e ON e.vault_id = p.vault_id AND e.epoch = p.epoch
                WHERE p.vault_id = \(vaultID) AND p.epoch = \(Int64(epoch)) AND p.device_id = \(deviceID)
                """, logger: logger)
            var found: SyncEpochPackage?
            for try await (sealed, signature, signer) in rows.decode((Data, Data, Data).self) {
                found = SyncEpochPackage(epoch: epoch,
                                         package: try SyncRekeyPackage(deviceID: deviceID, sealed: sealed, signature: signature),
                                         signerCertificate: try Self.decodeCertificate(signer))
            }
            return found
        }
    }

    /// What a device joining with the recovery kit reads: the keyring, the epoch and the
    /// sealed epoch keys; `nil` for an unknown vault.
    func recoveryBundle(vaultID: UUID) async throws -> SyncRecoveryBundle? {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                SELECT k.generation, k.keyring, v.epoch, v.epoch_keys FROM vaults v
                JOIN keyrings k ON k.vault_id = v.vault_id WHERE v.vault_id = \(vaultID)
                """, logger: logger)
            var bundle: SyncRecoveryBundle?
            for try await (generation, keyring, epoch, keys) in rows.decode((Int64, Data, Int64, Data?).self) {
                bundle = SyncRecoveryBundle(keyring: try SyncKeyringBlob(generation: generation, keyring: keyring),
                                            epoch: UInt32(clamping: epoch), epochKeys: keys)
            }
            return bundle
        }
    }

    /// Locks the vault's row; its epoch and key.
    ///
    /// - Throws: ``SyncServerError/notFound`` for an unknown vault.
    static func lockEpoch(vaultID: UUID, _ connection: PostgresConnection, _ logger: Logger) async throws -> VaultEpoch {
        let rows = try await connection.guardedQuery(
            "SELECT epoch, verification_key FROM vaults WHERE vault_id = \(vaultID) FOR UPDATE", logger: logger)
        var found: VaultEpoch?
        for try await (epoch, key) in rows.decode((Int64, Data).self) {
            found = VaultEpoch(epoch: UInt32(clamping: epoch), verificationKey: key)
        }
        guard let found else { throw SyncServerError.notFound }
        return found
    }

    /// Whether `signature` is `key`'s Ed25519 signature of `message`: the devices' own
    /// check (libsodium, strict), so the server accepts no proof a device would refuse.
    static func verify(_ signature: Data, _ message: Data, _ key: Data) -> Bool {
        SyncDeviceProof.isValidSignature(signature, of: message, by: key)
    }

    static func encode(_ certificate: SyncDeviceCertificate) throws -> Data {
        try SyncWireJSON.encoder().encode(certificate)
    }

    static func decodeCertificate(_ data: Data) throws -> SyncDeviceCertificate {
        try SyncWireJSON.decoder().decode(SyncDeviceCertificate.self, from: data)
    }
}
