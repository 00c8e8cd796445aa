import Foundation

/// Where repositories read "now" from, for `createdAt`, `updatedAt`, `deletedAt`
/// and for validation rules such as "a birth date is not in the future".
///
/// Instants are kept to whole milliseconds everywhere in MedVault (that is how they
/// are stored), so a value read back equals the value returned when it was saved.
///
/// For example, a test that needs a fixed time:
///
/// ```swift
/// let clock = RecordClock.fixed(Date(timeIntervalSince1970: 1_700_000_000))
/// ```
public struct RecordClock: Sendable {
    private let read: @Sendable () -> Date

    /// A clock that calls `now` for the current instant.
    public init(_ now: @escaping @Sendable () -> Date) {
        self.read = now
    }

    /// The current instant, truncated to whole milliseconds.
    public func now() -> Date {
        read().truncatedToMilliseconds
    }

    /// The system's wall clock.
    public static let system = RecordClock { Date() }

    /// A clock that always answers `date`.
    public static func fixed(_ date: Date) -> RecordClock {
        RecordClock { date }
    }
}

extension Date {
    /// Milliseconds since 1970-01-01T00:00:00Z, the form MedVault stores instants in.
    public var millisecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The instant `milliseconds` after 1970-01-01T00:00:00Z.
    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// This instant with any fraction of a millisecond dropped.
    public var truncatedToMilliseconds: Date {
        Date(millisecondsSince1970: millisecondsSince1970)
    }
}
