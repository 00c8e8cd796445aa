/// A categorical field whose values are an open set of strings: sex, session type,
/// dosage unit, route…
///
/// The values the reference documents name are static constants of each type; any
/// other stored value (written by a newer app version, or a local extension) is kept
/// intact through decoding, storage and encoding, never mapped to a default. Encoded
/// as its bare string.
///
/// For example:
///
/// ```swift
/// public struct SessionType: ExtensibleCategory {
///     public let rawValue: String
///     public init(rawValue: String) { self.rawValue = rawValue }
///     public static let video = SessionType("video")
/// }
/// SessionType(rawValue: "group").rawValue   // "group", kept as is
/// ```
public protocol ExtensibleCategory: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible
where RawValue == String {
    /// Wraps a stored value, known or not.
    init(rawValue: String)
}

extension ExtensibleCategory {
    /// Wraps a stored value, known or not.
    public init(_ rawValue: String) {
        self.init(rawValue: rawValue)
    }

    /// The raw value.
    public var description: String { rawValue }
}
