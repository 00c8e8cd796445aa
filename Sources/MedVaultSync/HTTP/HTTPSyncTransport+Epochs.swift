import Foundation
import MedVaultCore
import MedVaultSyncWire

/// The routes of sync epochs (docs/sync-server.md, "Epochs").
extension HTTPSyncTransport {
    /// `PUT /v1/vaults/{vault}/devices/{device}/certificate`: the same certificate twice
    /// is the same state.
    public func certify(_ certificate: SyncDeviceCertificate, as credentials: SyncCredentials) async throws {
        let _: Empty = try await call(
            "PUT", "v1/vaults/\(credentials.vaultID.uuidString)/devices/\(credentials.deviceID.uuidString)/certificate",
            body: certificate, credentials: credentials, idempotent: true)
    }

    /// `POST /v1/vaults/{vault}/epochs`: a retry after a lost answer fails `conflict` (the
    /// epoch moved already), never starts two epochs.
    public func startEpoch(_ request: SyncRekeyRequest, as credentials: SyncCredentials) async throws {
        let _: Empty = try await call("POST", "v1/vaults/\(credentials.vaultID.uuidString)/epochs", body: request,
                                      credentials: credentials, idempotent: true)
    }

    /// `GET /v1/vaults/{vault}/epochs/{epoch}/package`.
    public func epochPackage(epoch: UInt32, as credentials: SyncCredentials) async throws -> SyncEpochPackage {
        try await call("GET", "v1/vaults/\(credentials.vaultID.uuidString)/epochs/\(epoch)/package",
                       credentials: credentials, idempotent: true)
    }

    /// `GET /v1/vaults/{vault}/recovery`, without a token.
    public func recovery(vaultID: UUID) async throws -> SyncRecoveryBundle {
        try await call("GET", "v1/vaults/\(vaultID.uuidString)/recovery", idempotent: true)
    }

    /// `POST /v1/pairings`, without a token.
    public func createPairing(_ request: SyncPairingRequest) async throws {
        let _: Empty = try await call("POST", "v1/pairings", body: request, idempotent: false)
    }

    /// `GET /v1/pairings/{id}`, without a token.
    public func pairing(id: UUID) async throws -> SyncPairingState {
        try await call("GET", "v1/pairings/\(id.uuidString)", idempotent: true)
    }

    /// `PUT /v1/vaults/{vault}/pairings/{id}/approval`: answered once; a retry after a lost
    /// answer fails `conflict`.
    public func answerPairing(id: UUID, _ approval: SyncPairingApproval, as credentials: SyncCredentials) async throws {
        let _: Empty = try await call("PUT", "v1/vaults/\(credentials.vaultID.uuidString)/pairings/\(id.uuidString)/approval",
                                      body: approval, credentials: credentials, idempotent: true)
    }
}
