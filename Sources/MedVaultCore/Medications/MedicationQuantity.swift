/// An exact, non-floating amount of a medication: a dose or an inventory count.
///
/// Stored as a whole number of thousandths (`0.001`) of a unit, so adding and
/// subtracting doses from an inventory is exact: 100 decrements of 0.1 ml leave
/// exactly 0 of 10 ml, which `Double` does not guarantee. Three decimals cover
/// clinical dosages (`0.025` mg of levothyroxine, `2.5` ml, `0.5` tablets).
/// SQL implementations store ``thousandths`` as an `INTEGER`, so comparisons such
/// as "at or below the minimum" are exact there too.
///
/// For example:
///
/// ```swift
/// let dose: MedicationQuantity = 2.5          // from a literal, exact
/// let count = try MedicationQuantity("0.025") // from text
/// (dose - 1).description                      // "1.5"
/// ```
public struct MedicationQuantity: Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral
{
    /// The amount in thousandths of a unit.
    public var thousandths: Int64

    /// Creates an amount from a number of thousandths of a unit.
    public init(thousandths: Int64) {
        self.thousandths = thousandths
    }

    /// Creates a whole amount.
    public init(_ units: Int) {
        self.thousandths = Int64(units) * 1000
    }

    /// Parses a decimal such as `"2"`, `"2.5"`, `"0.025"` or `"-1.5"`.
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when the text is not a decimal
    ///   with at most three decimal places, or is out of range.
    public init(_ text: String) throws {
        guard let value = Self.parse(text) else {
            throw MedVaultError(.invalidArgument, reason: "expected a decimal with at most three decimals")
        }
        self = value
    }

    public init(integerLiteral value: Int64) {
        self.thousandths = value * 1000
    }

    /// Creates an amount from a literal, rounded to the nearest thousandth.
    ///
    /// Any literal with at most three decimals (`2.5`, `0.025`) is therefore exact.
    public init(floatLiteral value: Double) {
        self.thousandths = Int64((value * 1000).rounded(.toNearestOrAwayFromZero))
    }

    /// Zero.
    public static let zero = MedicationQuantity(thousandths: 0)

    /// Whether the amount is above zero.
    public var isPositive: Bool { thousandths > 0 }

    /// The decimal text, without trailing zeros: `"2.5"`, `"3"`, `"0.025"`.
    public var description: String {
        let negative = thousandths < 0
        let magnitude = thousandths.magnitude
        var text = String(magnitude / 1000)
        var fraction = magnitude % 1000
        if fraction != 0 {
            var digits = 3
            while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
            let raw = String(fraction)
            text += "." + String(repeating: "0", count: digits - raw.count) + raw
        }
        return negative ? "-" + text : text
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.thousandths < rhs.thousandths }

    /// The sum of two amounts.
    public static func + (lhs: Self, rhs: Self) -> Self { Self(thousandths: lhs.thousandths + rhs.thousandths) }

    /// The difference of two amounts.
    public static func - (lhs: Self, rhs: Self) -> Self { Self(thousandths: lhs.thousandths - rhs.thousandths) }

    /// The amount multiplied by a whole count (for example a number of doses).
    public static func * (lhs: Self, rhs: Int) -> Self { Self(thousandths: lhs.thousandths * Int64(rhs)) }

    // MARK: Codable, as decimal text so JSON keeps it exact

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self.parse(text) else {
            throw MedVaultError(.corrupted, reason: "stored quantity is not a decimal")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func parse(_ text: String) -> Self? {
        var body = Substring(text)
        let negative = body.first == "-"
        if negative { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 15,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let whole = Int64(parts[0])
        else { return nil }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...3).contains(digits.count), let value = Int64(digits) else { return nil }
            fraction = value * [100, 10, 1][digits.count - 1]
        }
        let magnitude = whole * 1000 + fraction
        return Self(thousandths: negative ? -magnitude : magnitude)
    }
}
