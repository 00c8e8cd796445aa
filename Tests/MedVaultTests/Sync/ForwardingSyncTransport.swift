import Foundation
@testable import MedVaultSync
import MedVaultSyncWire

/// A test transport that hands every call but `pull` to an `InMemorySyncTransport`:
/// conformers write only the pull they change.
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
}
