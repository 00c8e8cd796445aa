import Foundation

/// A position in one vault's change log: everything up to it has been read.
///
/// Opaque and `Codable`: an app persists it (a sync engine after each batch it has
/// uploaded) and passes it back to `Vault.changes(after:limit:)`. It is bound to its
/// vault: a cursor from another vault is refused with `invalidArgument`.
///
/// ```swift
/// var cursor = try savedCursor() // nil on first run
/// repeat {
///     let page = try await vault.changes(after: cursor, limit: 500)
///     try await upload(page.entries)
///     cursor = page.next
///     try save(cursor)
/// } while page.hasMore
/// ```
public struct ChangeCursor: Hashable, Sendable, Codable {
    /// The vault the cursor belongs to.
    let vaultID: UUID
    /// The sequence of the last entry read; 0 before the first.
    let sequence: Int64

    init(vaultID: UUID, sequence: Int64) {
        self.vaultID = vaultID
        self.sequence = sequence
    }

    private enum CodingKeys: String, CodingKey {
        case vaultID = "v"
        case sequence = "s"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        vaultID = try container.decode(UUID.self, forKey: .vaultID)
        sequence = try container.decode(Int64.self, forKey: .sequence)
        guard sequence >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .sequence, in: container,
                                                   debugDescription: "a change cursor's sequence is never negative")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(vaultID, forKey: .vaultID)
        try container.encode(sequence, forKey: .sequence)
    }
}
