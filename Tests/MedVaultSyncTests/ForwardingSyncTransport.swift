import Foundation
@testable import MedVaultSync
import MedVaultSyncWire

/// A test transport that hands every call to an `InMemorySyncTransport`: conformers write
/// only the calls they change.
protocol ForwardingSyncTransport: SyncTransport {
    var inner: InMemorySyncTransport { get }
}

extension ForwardingSyncTransport {
    func challenge(_ request: SyncChallengeRequest) async throws -> SyncChallenge { try await inner.challenge(request) }
    func register(_ request: SyncRegisterRequest) async throws -> SyncDeviceToken { try await inner.register(request) }
    func join(vaultID: UUID, _ request: SyncJoinRequest) async throws -> SyncDeviceToken {
        try await inner.join(vaultID: vaultID, request)
    }
    func push(_ request: SyncPushRequest, as credentials: SyncCredentials) async throws -> SyncPushResponse {
        try await inner.push(request, as: credentials)
    }
    func keyring(as credentials: SyncCredentials) async throws -> SyncKeyringBlob { try await inner.keyring(as: credentials) }
    func putKeyring(_ update: SyncKeyringUpdate, as credentials: SyncCredentials) async throws -> SyncKeyringBlob {
        try await inner.putKeyring(update, as: credentials)
    }
    func revoke(device: UUID, as credentials: SyncCredentials) async throws {
        try await inner.revoke(device: device, as: credentials)
    }
    func devices(as credentials: SyncCredentials) async throws -> SyncDeviceList { try await inner.devices(as: credentials) }
    func setName(_ update: SyncDeviceNameUpdate, as credentials: SyncCredentials) async throws {
        try await inner.setName(update, as: credentials)
    }
    func certify(_ certificate: SyncDeviceCertificate, as credentials: SyncCredentials) async throws {
        try await inner.certify(certificate, as: credentials)
    }
    func startEpoch(_ request: SyncRekeyRequest, as credentials: SyncCredentials) async throws {
        try await inner.startEpoch(request, as: credentials)
    }
    func epochPackage(epoch: UInt32, as credentials: SyncCredentials) async throws -> SyncEpochPackage {
        try await inner.epochPackage(epoch: epoch, as: credentials)
    }
    func recovery(vaultID: UUID) async throws -> SyncRecoveryBundle { try await inner.recovery(vaultID: vaultID) }
    func createPairing(_ request: SyncPairingRequest) async throws { try await inner.createPairing(request) }
    func pairing(id: UUID) async throws -> SyncPairingState { try await inner.pairing(id: id) }
    func answerPairing(id: UUID, _ approval: SyncPairingApproval, as credentials: SyncCredentials) async throws {
        try await inner.answerPairing(id: id, approval, as: credentials)
    }
}
