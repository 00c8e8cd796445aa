import MedVaultSyncWire

/// The limits the sync server enforces on every request.
///
/// Each has an environment variable (see ``SyncServerConfiguration/init(environment:)``);
/// the defaults suit a clinic's devices on one server.
public struct SyncServerLimits: Sendable, Hashable {
    /// Largest request body of a push, in bytes (413 beyond). Default 8 MiB.
    public var maximumPushBytes: Int = SyncProtocolLimits.maximumPushBytes
    /// Largest request body of every other route, in bytes (413 beyond). Default 128 KiB:
    /// a 64 KiB keyring in base64 with room to spare.
    public var maximumOtherBodyBytes: Int = 128 << 10
    /// Largest body of `POST …/epochs` (a new epoch: the keyring, the sealed epoch keys, a
    /// certificate and a package per device), in bytes. 1 MiB, fixed.
    public let maximumRekeyBodyBytes: Int = 1 << 20
    /// Most envelopes in one push (413 beyond). Default 500.
    public var maximumEnvelopesPerPush: Int = SyncProtocolLimits.maximumEnvelopesPerPush
    /// Most envelopes in one pull page; also the default `limit`. Default 500.
    public var maximumPullLimit: Int = SyncProtocolLimits.maximumPullLimit
    /// A pull page stops once its ciphertexts reach this many bytes (it always holds at
    /// least one envelope). Default 4 MiB.
    public var maximumPullBytes: Int = SyncProtocolLimits.maximumPullBytes
    /// Requests a device (or, before authentication, an address) may make per second,
    /// on average. Default 50.
    public var requestsPerSecond: Double = 50
    /// Requests a device may make in one burst. Default 200.
    public var burst: Double = 200
    /// Seconds a join or register challenge stays valid. Default 120.
    public var challengeLifetimeSeconds: Int = 120
    /// Challenges that may be pending at once for one (vault, device): a new one never
    /// replaces another (a stranger could cancel an enrolment); past this many, 429
    /// until the oldest expires. Default 16.
    public var maximumPendingChallenges: Int = 16
    /// Active (not revoked) devices a vault may have; a join past it is 403
    /// `quota_exceeded`. Default 32.
    public var maximumDevicesPerVault: Int = 32
    /// Envelopes a vault may store; a push past it is 403 `quota_exceeded` and stores
    /// nothing of its batch. Default 50,000,000.
    public var maximumEnvelopesPerVault: Int = 50_000_000
    /// Bytes of ciphertext and record keys a vault may store; a push past it is 403
    /// `quota_exceeded`. Default 50 GiB.
    public var maximumStoredBytesPerVault: Int = 50 << 30
    /// Seconds a device token stays valid after it was issued; past it, 401
    /// `token_expired` until the device renews it with a proof of the vault key.
    /// Default 30 days.
    public var tokenLifetimeSeconds: Int = 30 * 86_400
    /// Seconds an invitation to register stays valid. Default 7 days.
    public var invitationLifetimeSeconds: Int = 7 * 86_400
    /// Unused, unexpired invitations a vault may hold; past it, 429 until one is spent
    /// or expires. Default 20.
    public var maximumPendingInvitations: Int = 20
    /// Seconds a client connection may stay idle before the server closes it. Default 30.
    /// Also bounds a graceful shutdown (SIGTERM): it waits for open connections, and an
    /// HTTP client's idle keep-alive connection would otherwise keep it waiting forever.
    public var idleTimeoutSeconds: Int = 30

    /// The default limits.
    public init() {}
}
