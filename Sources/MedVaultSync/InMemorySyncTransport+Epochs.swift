import Foundation
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

/// Sync epochs, as the server keeps them (docs/sync-server.md, "Epochs").
extension InMemorySyncTransport {
    /// Stores this device's certificate of the current epoch, checked as the server checks it.
    public func certify(_ certificate: SyncDeviceCertificate, as credentials: SyncCredentials) async throws {
        try enter(certificate)
        var vault = try authenticate(credentials)
        guard certificate.deviceID == credentials.deviceID else {
            throw MedVaultError(.notFound, reason: "a device certifies only itself")
        }
        try Self.check(certificate, vaultID: credentials.vaultID, epoch: vault.epoch ?? 0, key: vault.verificationKey)
        vault.devices[credentials.deviceID]?.certificate = certificate
        vaults[credentials.vaultID] = vault
        try save()
    }

    /// Starts the next epoch, with the server's checks, all or nothing.
    public func startEpoch(_ request: SyncRekeyRequest, as credentials: SyncCredentials) async throws {
        try enter(request)
        var vault = try authenticate(credentials)
        let current = vault.epoch ?? 0
        guard current < .max, request.epoch == current + 1 else {
            throw MedVaultError(.conflict, reason: "a new epoch follows the current one")
        }
        let message = SyncRekeyRequest.authorizationMessage(
            vaultID: credentials.vaultID, epoch: request.epoch, verificationKey: request.verificationKey,
            revoked: request.revoked, signer: credentials.deviceID)
        guard SyncDeviceKey.verify(Array(request.authorization), of: Array(message), by: Array(vault.verificationKey)),
              request.signerCertificate.deviceID == credentials.deviceID else {
            throw Self.forbidden
        }
        try Self.check(request.signerCertificate, vaultID: credentials.vaultID, epoch: current, key: vault.verificationKey)
        let active = Set(vault.devices.filter { !$0.value.revoked }.keys)
        let revoked = Set(request.revoked)
        let remaining = active.subtracting(revoked)
        guard revoked.isSubset(of: active), !revoked.contains(credentials.deviceID),
              Set(request.certificates.map(\.deviceID)) == remaining,
              Set(request.packages.map(\.deviceID)) == remaining else {
            throw MedVaultError(.conflict, reason: "a new epoch names exactly the remaining devices")
        }
        for certificate in request.certificates {
            try Self.check(certificate, vaultID: credentials.vaultID, epoch: request.epoch, key: request.verificationKey)
        }
        guard vault.keyring.generation == request.keyring.expectedGeneration else {
            throw MedVaultError(.conflict, reason: "the keyring's generation moved; read it again")
        }
        for id in revoked {
            vault.devices[id]?.revoked = true
            vault.devices[id]?.certificate = nil
        }
        for certificate in request.certificates { vault.devices[certificate.deviceID]?.certificate = certificate }
        vault.verificationKey = request.verificationKey
        vault.epoch = request.epoch
        vault.epochKeys = request.epochKeys
        vault.keyring = request.keyring.keyring
        vault.packages = (vault.packages ?? [:]).merging(
            [request.epoch: Dictionary(uniqueKeysWithValues: request.packages.map { ($0.deviceID, $0) })]) { $1 }
        vault.signers = (vault.signers ?? [:]).merging([request.epoch: request.signerCertificate]) { $1 }
        vaults[credentials.vaultID] = vault
        try save()
    }

    /// This device's package of `epoch`; `notFound` when it has none.
    public func epochPackage(epoch: UInt32, as credentials: SyncCredentials) async throws -> SyncEpochPackage {
        try enter(nil)
        let vault = try authenticate(credentials)
        guard let package = vault.packages?[epoch]?[credentials.deviceID], let signer = vault.signers?[epoch] else {
            throw MedVaultError(.notFound, reason: "no package of this epoch for this device")
        }
        return SyncEpochPackage(epoch: epoch, package: package, signerCertificate: signer)
    }

    /// The keyring, epoch and sealed epoch keys of `vaultID`, without a token.
    public func recovery(vaultID: UUID) async throws -> SyncRecoveryBundle {
        try enter(nil)
        guard let vault = vaults[vaultID] else { throw MedVaultError(.notFound, reason: "no such vault") }
        return SyncRecoveryBundle(keyring: vault.keyring, epoch: vault.epoch ?? 0, epochKeys: vault.epochKeys)
    }

    /// Stores a pairing request; `conflict` when the id is taken. Pairings are kept in
    /// memory only and never expire here (the server keeps them 10 minutes).
    public func createPairing(_ request: SyncPairingRequest) async throws {
        try enter(request)
        guard pairings[request.pairingID] == nil else {
            throw MedVaultError(.conflict, reason: "a pairing with this id exists")
        }
        pairings[request.pairingID] = SyncPairingState(request: request, approval: nil)
    }

    /// A pairing's request and answer; `notFound` when unknown.
    public func pairing(id: UUID) async throws -> SyncPairingState {
        try enter(nil)
        guard let state = pairings[id] else { throw MedVaultError(.notFound, reason: "no such pairing") }
        return state
    }

    /// Answers a pairing once; `conflict` after.
    public func answerPairing(id: UUID, _ approval: SyncPairingApproval, as credentials: SyncCredentials) async throws {
        try enter(approval)
        _ = try authenticate(credentials)
        guard let state = pairings[id] else { throw MedVaultError(.notFound, reason: "no such pairing") }
        guard state.approval == nil else { throw MedVaultError(.conflict, reason: "the pairing was answered already") }
        pairings[id] = SyncPairingState(request: state.request, approval: approval)
    }

    /// Checks a push's signature as the server does: required from epoch 1; the pushing
    /// device's, of the vault's epoch, listing exactly the push's envelopes, with the keys
    /// the server holds for the device, certified by the vault's key, and verifying.
    ///
    /// - Throws: `validation` (the server's 400) otherwise.
    static func check(_ signature: SyncPushSignature?, of envelopes: [SyncEnvelope], vault: VaultState, vaultID: UUID,
                      device: UUID) throws {
        let refused = MedVaultError(.validation, reason: "the sync server refused the request as malformed")
        guard let signature, signature.signer == device, signature.epoch == vault.epoch ?? 0,
              let stored = vault.devices[device]?.certificate,
              stored.signingKey == signature.certificate.signingKey, stored.boxKey == signature.certificate.boxKey,
              SyncDeviceKey.verify(Array(signature.certificate.signature), of: Array(signature.certificate.message(vaultID: vaultID)),
                                   by: Array(vault.verificationKey)),
              SyncDeviceKey.verify(Array(signature.signature), of: Array(SyncPushSignature.message(
                  vaultID: vaultID, signer: device, epoch: signature.epoch, entries: signature.entries)),
                                   by: Array(signature.certificate.signingKey)) else { throw refused }
        var expected = Data()
        for envelope in envelopes {
            withUnsafeBytes(of: envelope.id.uuid) { expected.append(contentsOf: $0) }
            expected.append(PushSignatures.digest(envelope))
        }
        guard expected == signature.entries else { throw refused }
    }

    /// Throws `unauthorized` (the server's 403) unless `certificate` is of `epoch` and
    /// signed by `key`.
    static func check(_ certificate: SyncDeviceCertificate, vaultID: UUID, epoch: UInt32, key: Data) throws {
        guard certificate.epoch == epoch,
              SyncDeviceKey.verify(Array(certificate.signature), of: Array(certificate.message(vaultID: vaultID)),
                                   by: Array(key)) else {
            throw forbidden
        }
    }
}
