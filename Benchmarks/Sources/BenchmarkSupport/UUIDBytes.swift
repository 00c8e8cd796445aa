import Foundation

/// 16 bytes of a UUID, kept as bytes so both sides bind exactly the same blob.
public struct UUIDBytes: Sendable, Hashable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The Foundation value (MedVault's side binds `uuid.vaultValue`).
    public var uuid: UUID {
        UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
