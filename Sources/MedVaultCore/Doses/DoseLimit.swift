import Foundation

/// The rule of ``Medication/maximumDosesPer24Hours``: no 24-hour period may hold
/// more doses taken (taken or late) than the maximum. Pure: both stores call it
/// before they write a log.
///
/// A dose counts at its `takenAt`. A new dose is refused when some half-open window
/// `[t, t + 24 h)` that contains it would then hold more than the maximum.
public enum DoseLimit {
    /// The error of a refused dose: ``MedVaultError/Code/limitExceeded``, field
    /// `maximumDosesPer24Hours`.
    public static let exceeded = MedVaultError(
        .limitExceeded, field: "maximumDosesPer24Hours", reason: "the maximum number of doses in 24 hours is reached")

    /// The span the rule looks at around a dose: 24 hours each side.
    public static let window: TimeInterval = 86_400

    /// Checks that one more dose taken at `takenAt` keeps every 24-hour window within `maximum`.
    ///
    /// For example:
    ///
    /// ```swift
    /// // Three doses already today, at most 3 per 24 hours: a fourth is refused.
    /// try DoseLimit.check(adding: now, to: [t1, t2, t3], maximum: 3) // throws limitExceeded
    /// ```
    ///
    /// - Parameters:
    ///   - takenAt: When the new dose was taken.
    ///   - taken: When the medication's other doses were taken (any order; those more
    ///     than 24 hours away are ignored).
    ///   - maximum: The limit, or `nil` for none.
    /// - Throws: ``exceeded``.
    public static func check(adding takenAt: Date, to taken: [Date], maximum: Int?) throws {
        guard let maximum else { return }
        let t = takenAt.millisecondsSince1970
        let span = Int64(window * 1000)
        let near = (taken.map(\.millisecondsSince1970).filter { abs($0 - t) < span } + [t]).sorted()
        // Every window that holds the most doses starts at one of them.
        for (first, start) in near.enumerated() where start <= t && t < start + span {
            let count = near[first...].prefix { $0 < start + span }.count
            if count > maximum { throw exceeded }
        }
    }
}
