import Foundation

/// One line of the result table: a figure measured through MedVault, the same
/// figure measured on the reference in the same run, and their ratio.
///
/// The ratio is always **MedVault's cost ÷ the reference's cost**: for times and
/// memory that is `medVault / reference`, for rates (rows/s, MB/s) it is
/// `reference / medVault`. So 1.00 means "as fast as the reference", 1.25 means
/// "25 % slower", and a target reads the same way for every row ("≤ 1.10").
struct Measurement: Sendable {
    /// What was measured and how it is summarised, e.g. "W2 open + first query (median)".
    var label: String
    /// The reference it is compared with, e.g. "raw C, x'…' key".
    var referenceLabel: String
    /// MedVault's figure, or `nil` while the MedVault side is not built yet.
    var medVault: Double?
    /// The reference's figure, measured in the same process and run.
    var reference: Double?
    /// The unit of both figures.
    var unit: MeasureUnit
    /// The highest acceptable ratio, if the benchmark issue sets one (or, when
    /// ``targetIsAbsolute``, the highest acceptable MedVault figure in ``unit``).
    var target: Double?
    /// Whether ``target`` bounds MedVault's own figure rather than the ratio.
    var targetIsAbsolute = false
    /// Why a side is missing, or what the reader should know about this line.
    var note: String?
    /// The "C plain" peer's figure (raw SQLCipher C on the plain schema), if measured.
    var plain: Double?
    /// The highest acceptable ratio against ``plain``.
    var plainTarget: Double?
    /// The GRDB peer's figure (GRDB 7.10 on plain SQLite, its own process), if measured.
    var grdb: Double?
    /// The highest acceptable ratio against ``grdb``.
    var grdbTarget: Double?

    init(label: String, referenceLabel: String, medVault: Double?, reference: Double?, unit: MeasureUnit,
         target: Double?, targetIsAbsolute: Bool = false, note: String?) {
        self.label = label
        self.referenceLabel = referenceLabel
        self.medVault = medVault
        self.reference = reference
        self.unit = unit
        self.target = target
        self.targetIsAbsolute = targetIsAbsolute
        self.note = note
    }

    /// MedVault's cost ÷ the reference's cost, or `nil` when a side is missing.
    var ratio: Double? { ratio(to: reference) }

    /// MedVault's cost ÷ `peer`'s cost, or `nil` when a side is missing.
    func ratio(to peer: Double?) -> Double? {
        guard let medVault, let peer, medVault > 0, peer > 0, medVault.isFinite, peer.isFinite else { return nil }
        return unit.higherIsBetter ? peer / medVault : medVault / peer
    }

    /// Adds the peers' figures and targets.
    func with(plain: Double?, plainTarget: Double? = nil, grdb: Double?, grdbTarget: Double? = nil) -> Measurement {
        var copy = self
        copy.plain = plain
        copy.plainTarget = plainTarget
        copy.grdb = grdb
        copy.grdbTarget = grdbTarget
        return copy
    }

    /// The workload's identifier: the label's first word ("W1", "K2", "S").
    var workloadID: String { String(label.prefix { $0 != " " }) }

    /// Whether the ratio meets the target (`nil` when either is missing).
    var meetsTarget: Bool? {
        guard let target else { return nil }
        if targetIsAbsolute {
            guard let medVault, medVault.isFinite else { return nil }
            return medVault <= target
        }
        guard let ratio else { return nil }
        return ratio <= target
    }
}

/// The unit of a figure, which also decides how the ratio is oriented.
enum MeasureUnit: String, Sendable {
    case milliseconds = "ms"
    case microseconds = "µs"
    case rowsPerSecond = "rows/s"
    case megabytesPerSecond = "MB/s"
    case mebibytes = "MiB"
    case writesPerSecond = "writes/s"
    case ratio = "×"
    case pages = "pages"
    case statements = "statements"

    /// Rates are better when higher; times and memory when lower.
    var higherIsBetter: Bool {
        switch self {
        case .rowsPerSecond, .megabytesPerSecond, .writesPerSecond: return true
        case .milliseconds, .microseconds, .mebibytes, .ratio, .pages, .statements: return false
        }
    }

    /// `value` with a sensible number of digits and the unit, e.g. "3.42 ms", "81,230 rows/s".
    func format(_ value: Double?) -> String {
        guard let value else { return "—" } // a side not measured (a diagnostic of the references)
        guard value.isFinite else { return "n/a" }
        switch self {
        case .rowsPerSecond, .writesPerSecond:
            return "\(Self.grouped(Int(value.rounded()))) \(rawValue)"
        case .milliseconds, .microseconds, .megabytesPerSecond, .mebibytes, .ratio, .pages, .statements:
            let digits = value >= 100 ? 0 : (value >= 10 ? 1 : 2)
            return String(format: "%.\(digits)f %@", value, rawValue)
        }
    }

    private static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0 && (digits.count - offset).isMultiple(of: 3) { result.append(",") }
            result.append(character)
        }
        return value < 0 ? "-" + result : result
    }
}
