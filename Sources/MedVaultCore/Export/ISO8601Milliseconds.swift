import Foundation

/// ISO-8601 text for instants with exactly millisecond precision, in UTC:
/// `2026-03-16T09:30:00.250Z`.
///
/// MedVault stores instants as whole milliseconds, so this form round-trips every
/// stored instant exactly (Foundation's `.iso8601` strategy drops the fraction, and a
/// fractional-second formatter can lose a millisecond to floating-point rounding).
///
/// For example:
///
/// ```swift
/// let text = ISO8601Milliseconds.string(from: Date(millisecondsSince1970: 1_773_653_400_250))
/// // "2026-03-16T09:30:00.250Z"
/// ISO8601Milliseconds.date(from: text) // the same instant
/// ```
public enum ISO8601Milliseconds {
    /// The instant as `YYYY-MM-DDTHH:MM:SS.mmmZ`, rounded to the nearest millisecond.
    public static func string(from date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, remainder) = floorDivision(milliseconds, 1000)
        let secondsPart = Date(timeIntervalSince1970: TimeInterval(seconds))
            .formatted(Date.ISO8601FormatStyle(timeZone: utc))
        let fraction = String(remainder)
        let padded = String(repeating: "0", count: 3 - fraction.count) + fraction
        // "2026-03-16T09:30:00Z" → "2026-03-16T09:30:00.250Z"
        return String(secondsPart.dropLast()) + "." + padded + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (or a `±HH:MM` offset). Digits of the
    /// fraction beyond the third are ignored.
    ///
    /// - Returns: The instant, or `nil` when `text` is not in that form.
    public static func date(from text: String) -> Date? {
        var whole = text
        var milliseconds: Int64 = 0
        if let dot = text.firstIndex(of: ".") {
            let afterDot = text[text.index(after: dot)...]
            let digits = afterDot.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty else { return nil }
            let firstThree = String(digits.prefix(3))
            let scaled = firstThree + String(repeating: "0", count: 3 - firstThree.count)
            guard let value = Int64(scaled) else { return nil }
            milliseconds = value
            whole = String(text[..<dot]) + String(afterDot.dropFirst(digits.count))
        }
        guard let seconds = try? Date.ISO8601FormatStyle(timeZone: utc).parse(whole) else { return nil }
        let base = Int64(seconds.timeIntervalSince1970.rounded())
        return Date(millisecondsSince1970: base * 1000 + milliseconds)
    }

    private static let utc = TimeZone(secondsFromGMT: 0) ?? TimeZone.current

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }
}
