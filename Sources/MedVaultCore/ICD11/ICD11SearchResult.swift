/// What a catalogue search returned, and where from.
public struct ICD11SearchResult: Sendable, Hashable {
    /// Where the results came from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The WHO ICD-API (or a local ICD-API container).
        case server
        /// The vault's offline cache: only categories fetched or chosen before, because
        /// the server could not be reached.
        case cache
    }

    /// The categories found, best first.
    public var entities: [ICD11Entity]
    /// Where they came from; ``Source/cache`` means the server could not be reached.
    public var source: Source

    /// Creates a result.
    public init(entities: [ICD11Entity], source: Source) {
        self.entities = entities
        self.source = source
    }
}
