import Foundation

/// A hybrid logical clock timestamp: wall-clock milliseconds plus a logical counter,
/// strictly increasing along a vault's change log even when the wall clock goes back.
///
/// Stored as one 64-bit integer: the upper bits are Unix milliseconds, the lower 16 a
/// counter that breaks ties within a millisecond (and carries into the milliseconds if
/// a burst ever exceeds 65,536 entries in one). Comparing timestamps compares the
/// integers.
public struct HybridTimestamp: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The packed value: `milliseconds << 16 | counter`.
    public let rawValue: Int64

    /// A timestamp from its packed value.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// Unix milliseconds: the wall clock when the entry was written, or later when the
    /// clock had gone back (the clock never runs backwards).
    public var milliseconds: Int64 { rawValue >> 16 }

    /// The tie-breaking counter within ``milliseconds``.
    public var counter: Int { Int(rawValue & 0xFFFF) }

    /// ``milliseconds`` as a date.
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "\(milliseconds).\(counter)" }
}
