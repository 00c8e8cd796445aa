/// The sync protocol's default limits, defined once: the sync server's defaults
/// (`SyncServerLimits`), the engine's batch clamp and push body size, and the in-memory
/// transport's limits all read them.
///
/// A server may be configured with other values (its environment variables); a client
/// built for the defaults sends batches and bodies within them.
public enum SyncProtocolLimits {
    /// The most envelopes one push may carry (`MEDVAULT_SYNC_MAX_PUSH_ENVELOPES`): 500.
    public static let maximumEnvelopesPerPush = 500
    /// The most envelopes one pull page returns (`MEDVAULT_SYNC_MAX_PULL_LIMIT`): 500.
    public static let maximumPullLimit = 500
    /// The largest push body, in bytes (`MEDVAULT_SYNC_MAX_PUSH_BYTES`): 8 MiB.
    public static let maximumPushBytes = 8 << 20
    /// A pull page stops once its ciphertexts reach this many bytes
    /// (`MEDVAULT_SYNC_MAX_PULL_BYTES`): 4 MiB.
    public static let maximumPullBytes = 4 << 20
}
