import Foundation
import MedVaultCore
import MedVaultSyncWire

/// What a device presents on every authenticated request: its vault, its id and the
/// device token the server issued when it registered or joined.
///
/// The token is a secret: ``description`` never shows it.
public struct SyncCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The vault the device belongs to.
    public let vaultID: UUID
    /// The device.
    public let deviceID: UUID
    /// The server-issued device token (256 random bits, base64url).
    public let deviceToken: String

    /// Creates credentials from a token the server issued.
    public init(vaultID: UUID, deviceID: UUID, deviceToken: String) {
        self.vaultID = vaultID
        self.deviceID = deviceID
        self.deviceToken = deviceToken
    }

    /// The vault and device, with the token redacted.
    public var description: String {
        "SyncCredentials(vault: \(vaultID), device: \(deviceID), token: <redacted>)"
    }
}

/// How a sync engine reaches the server that orders a vault's envelopes.
///
/// One method per route of the server API (`docs/sync-server.md`); an implementation
/// moves the wire types of `MedVaultSyncWire` and adds nothing of its own, so the
/// engine behaves the same over `InMemorySyncTransport`-style test doubles and over
/// HTTP. Every method is safe to retry: pushes are idempotent by envelope id, keyring
/// writes are compare-and-swap on the generation.
///
/// Errors are `MedVaultError`s with these codes, and fixed reasons (never an envelope,
/// a record key or a token):
/// - `offline`, `timeout`: the server could not be reached or did not answer; retry later.
/// - `unauthorized`: no such device, a wrong or revoked token, a failed proof.
/// - `tokenExpired`: the device token outlived the server's token lifetime;
///   ``renewToken(_:as:)`` replaces it (``SyncEngine`` does so by itself).
/// - `notFound`: no such vault.
/// - `conflict`: the vault or device already exists (register, join), another envelope
///   already has this id, or the keyring's generation moved (``putKeyring(_:as:)``).
/// - `rateLimited` (with `retryAfter`), `limitExceeded` (a body or batch too large, or the
///   vault at one of the server's quotas: active devices, envelopes, stored bytes).
/// - `serverError`, `badResponse`: the server failed or answered something unusable.
///
/// The wire values' own `SyncWireError` is not among them: a transport that decodes an
/// answer reports an unusable one as `badResponse` (as ``HTTPSyncTransport`` does).
public protocol SyncTransport: Sendable {
    /// Asks for a one-time challenge to sign, bound to `request`'s vault and device
    /// (`POST /v1/challenges`).
    func challenge(_ request: SyncChallengeRequest) async throws -> SyncChallenge

    /// Registers a new vault with its first device and its keyring blob
    /// (`POST /v1/vaults`); returns the device's token.
    func register(_ request: SyncRegisterRequest) async throws -> SyncDeviceToken

    /// Joins a device to an existing vault by signing a challenge with the vault's
    /// device-signing key (`POST /v1/vaults/{vault}/devices`); returns its token.
    func join(vaultID: UUID, _ request: SyncJoinRequest) async throws -> SyncDeviceToken

    /// Pushes envelopes in one batch (`POST …/envelopes`); returns their server
    /// sequences, in order. A retried envelope (same id, same bytes) gets its first
    /// sequence again and is not stored twice.
    func push(_ request: SyncPushRequest, as credentials: SyncCredentials) async throws -> SyncPushResponse

    /// Pulls up to `limit` envelopes after server sequence `after`, oldest first
    /// (`GET …/envelopes?after=&limit=`).
    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse

    /// Reads the vault's keyring blob (`GET …/keyring`).
    func keyring(as credentials: SyncCredentials) async throws -> SyncKeyringBlob

    /// Replaces the keyring blob if the server still holds `update.expectedGeneration`
    /// (`PUT …/keyring`); returns the stored blob. Throws `conflict` when the generation
    /// moved: read it again, merge, retry.
    func putKeyring(_ update: SyncKeyringUpdate, as credentials: SyncCredentials) async throws -> SyncKeyringBlob

    /// Revokes a device of the vault (`DELETE …/devices/{device}`): its token stops
    /// working at once. A device cannot revoke itself (the server answers 400,
    /// `validation`): another device of the vault revokes it.
    func revoke(device: UUID, as credentials: SyncCredentials) async throws

    /// A challenge for renewing this device's token, asked for with the token itself
    /// (`POST …/devices/{device}/token/challenges`), so that strangers asking for this
    /// device's anonymous challenges cannot block its renewal. The default implementation
    /// asks for an anonymous one (``challenge(_:)``).
    func tokenChallenge(as credentials: SyncCredentials) async throws -> SyncChallenge

    /// Renews this device's token (`POST …/devices/{device}/token`), with the current
    /// one in `credentials` (expired or not) and a `.renew` proof of the vault key;
    /// returns the new token. The old one stops working at once. The default
    /// implementation throws `invalidArgument`: a transport without token lifetimes.
    func renewToken(_ request: SyncTokenRenewalRequest, as credentials: SyncCredentials) async throws -> SyncDeviceToken

    /// Mints a single-use invitation to register one new vault at this server
    /// (`POST …/invitations`), for a server that registers only invited vaults. The
    /// default implementation throws `invalidArgument`.
    func invitation(as credentials: SyncCredentials) async throws -> SyncInvitation

    /// Every device of the vault, revoked ones included, in the order they enrolled
    /// (`GET …/devices`). The default implementation throws `invalidArgument`.
    func devices(as credentials: SyncCredentials) async throws -> SyncDeviceList

    /// Stores this device's name, sealed by the engine (`PUT …/devices/{device}/name`).
    /// The default implementation throws `invalidArgument`.
    func setName(_ update: SyncDeviceNameUpdate, as credentials: SyncCredentials) async throws

    /// Stores this device's certificate of the vault's current epoch
    /// (`PUT …/devices/{device}/certificate`). The default implementation throws
    /// `invalidArgument`: a transport without sync epochs.
    func certify(_ certificate: SyncDeviceCertificate, as credentials: SyncCredentials) async throws

    /// Starts the vault's next sync epoch, revoking devices in the same step
    /// (`POST …/epochs`). Throws `conflict` when the epoch or the keyring moved meanwhile.
    /// The default implementation throws `invalidArgument`.
    func startEpoch(_ request: SyncRekeyRequest, as credentials: SyncCredentials) async throws

    /// This device's package of the keys of `epoch`, which another device started
    /// (`GET …/epochs/{epoch}/package`); `notFound` when there is none for it. The default
    /// implementation throws `invalidArgument`.
    func epochPackage(epoch: UInt32, as credentials: SyncCredentials) async throws -> SyncEpochPackage

    /// What a device joining with the recovery kit reads, without a token
    /// (`GET /v1/vaults/{vault}/recovery`): the keyring, the epoch and the sealed epoch
    /// keys. The default implementation throws `invalidArgument`.
    func recovery(vaultID: UUID) async throws -> SyncRecoveryBundle

    /// Posts a new device's pairing request, without a token (`POST /v1/pairings`);
    /// `conflict` when the id is taken. The default implementation throws `invalidArgument`.
    func createPairing(_ request: SyncPairingRequest) async throws

    /// A pairing's request and answer, without a token (`GET /v1/pairings/{id}`);
    /// `notFound` when it does not exist or expired. The default implementation throws
    /// `invalidArgument`.
    func pairing(id: UUID) async throws -> SyncPairingState

    /// Answers a pairing (`PUT …/pairings/{id}/approval`), once; `conflict` when it was
    /// answered already. The default implementation throws `invalidArgument`.
    func answerPairing(id: UUID, _ approval: SyncPairingApproval, as credentials: SyncCredentials) async throws

    /// The origin of the server this transport reaches, which the engine binds register
    /// and join proofs to (`SyncDeviceProof.message(_:challenge:vaultID:deviceID:origin:)`),
    /// so that a server relaying another server's challenge gets a proof the other one
    /// refuses. `nil` (the default implementation): unbound proofs, as earlier builds sent.
    var proofOrigin: String? { get }
}

extension SyncTransport {
    /// No origin: the engine signs the unbound proofs of earlier builds.
    public var proofOrigin: String? { nil }

    /// An anonymous challenge for the device (``challenge(_:)``).
    public func tokenChallenge(as credentials: SyncCredentials) async throws -> SyncChallenge {
        try await challenge(SyncChallengeRequest(vaultID: credentials.vaultID, deviceID: credentials.deviceID))
    }

    /// A transport without token lifetimes: `invalidArgument`.
    public func renewToken(_ request: SyncTokenRenewalRequest, as credentials: SyncCredentials) async throws
        -> SyncDeviceToken {
        throw MedVaultError(.invalidArgument, reason: "this sync transport does not renew device tokens")
    }

    /// A transport without a device list: `invalidArgument`.
    public func devices(as credentials: SyncCredentials) async throws -> SyncDeviceList {
        throw MedVaultError(.invalidArgument, reason: "this sync transport does not list devices")
    }

    /// A transport without device names: `invalidArgument`.
    public func setName(_ update: SyncDeviceNameUpdate, as credentials: SyncCredentials) async throws {
        throw MedVaultError(.invalidArgument, reason: "this sync transport does not keep device names")
    }

    /// A transport without sync epochs: `invalidArgument`.
    public func certify(_ certificate: SyncDeviceCertificate, as credentials: SyncCredentials) async throws {
        throw Self.withoutEpochs
    }

    /// A transport without sync epochs: `invalidArgument`.
    public func startEpoch(_ request: SyncRekeyRequest, as credentials: SyncCredentials) async throws {
        throw Self.withoutEpochs
    }

    /// A transport without sync epochs: `invalidArgument`.
    public func epochPackage(epoch: UInt32, as credentials: SyncCredentials) async throws -> SyncEpochPackage {
        throw Self.withoutEpochs
    }

    /// A transport without sync epochs: `invalidArgument`.
    public func recovery(vaultID: UUID) async throws -> SyncRecoveryBundle {
        throw Self.withoutEpochs
    }

    /// A transport without pairing: `invalidArgument`.
    public func createPairing(_ request: SyncPairingRequest) async throws { throw Self.withoutEpochs }

    /// A transport without pairing: `invalidArgument`.
    public func pairing(id: UUID) async throws -> SyncPairingState { throw Self.withoutEpochs }

    /// A transport without pairing: `invalidArgument`.
    public func answerPairing(id: UUID, _ approval: SyncPairingApproval, as credentials: SyncCredentials) async throws {
        throw Self.withoutEpochs
    }

    private static var withoutEpochs: MedVaultError {
        MedVaultError(.invalidArgument, reason: "this sync transport does not keep sync epochs")
    }

    /// A transport without invitations: `invalidArgument`.
    public func invitation(as credentials: SyncCredentials) async throws -> SyncInvitation {
        throw MedVaultError(.invalidArgument, reason: "this sync transport does not mint invitations")
    }
}
