import Foundation

/// The vault's keyring as the sync server keeps it: opaque bytes and their generation.
///
/// The keyring is the file every device needs to unlock the vault with its password or
/// recovery key (see docs/keyring-format.md); its slots are wrapped, so the server
/// cannot use it. `GET /v1/vaults/{vaultId}/keyring` answers with this value, and
/// registering a vault sends it.
public struct SyncKeyringBlob: Sendable, Hashable, Codable {
    /// The largest keyring the server accepts (64 KiB).
    public static let maximumLength = 64 * 1024

    /// The keyring's generation: it grows with every change, and the server only
    /// replaces a keyring whose generation the writer names (compare-and-swap).
    public let generation: Int64
    /// The keyring's bytes.
    public let keyring: Data
    /// The vault's sync epoch when the server answered (`GET …/keyring`), so each sync
    /// learns of a new epoch without another request; `nil` in requests and from servers
    /// before epochs.
    public let epoch: UInt32?

    /// Creates a keyring value.
    ///
    /// - Throws: ``SyncWireError`` when `generation` is negative or
    ///   `keyring` is empty or longer than ``maximumLength``.
    public init(generation: Int64, keyring: Data, epoch: UInt32? = nil) throws {
        guard generation >= 0 else {
            throw SyncWireError(field: "generation", reason: "must not be negative")
        }
        guard !keyring.isEmpty, keyring.count <= Self.maximumLength else {
            throw SyncWireError(field: "keyring", reason: "must be 1 byte to 64 KiB")
        }
        self.generation = generation
        self.keyring = keyring
        self.epoch = epoch
    }

    private enum CodingKeys: String, CodingKey {
        case generation, keyring, epoch
    }

    /// Decodes and validates a keyring value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(generation: try container.decode(Int64.self, forKey: .generation),
                      keyring: try container.decode(Data.self, forKey: .keyring),
                      epoch: try container.decodeIfPresent(UInt32.self, forKey: .epoch))
    }
}

/// The body of `PUT /v1/vaults/{vaultId}/keyring`: a compare-and-swap.
///
/// The server replaces the keyring only while its generation is still
/// ``expectedGeneration``; otherwise it answers 409 `stale_generation` and changes
/// nothing, and the device fetches the newer keyring and merges.
public struct SyncKeyringUpdate: Sendable, Hashable, Codable {
    /// The generation the device last read.
    public let expectedGeneration: Int64
    /// The new keyring; its generation is ``expectedGeneration`` + 1.
    public let keyring: SyncKeyringBlob

    /// Creates an update.
    ///
    /// - Throws: ``SyncWireError`` when the new generation is not the
    ///   expected one + 1: a generation that jumps (to `Int64.max`, say) would leave no
    ///   room for the next compare-and-swap.
    public init(expectedGeneration: Int64, keyring: SyncKeyringBlob) throws {
        guard expectedGeneration < .max, keyring.generation == expectedGeneration + 1 else {
            throw SyncWireError(field: "generation", reason: "must be the expected generation + 1")
        }
        self.expectedGeneration = expectedGeneration
        self.keyring = keyring
    }

    private enum CodingKeys: String, CodingKey {
        case expectedGeneration, keyring
    }

    /// Decodes and validates an update.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(expectedGeneration: try container.decode(Int64.self, forKey: .expectedGeneration),
                      keyring: try container.decode(SyncKeyringBlob.self, forKey: .keyring))
    }
}
