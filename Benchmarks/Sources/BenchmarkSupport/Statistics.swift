import Foundation

/// Order statistics over a sample of timings.
///
/// Percentiles use the nearest-rank definition on the sorted sample (the value
/// below which `p` % of the observations fall, always an observed value), so a
/// p99 of 2,000 samples is the 1,980th smallest. The median of an even-sized
/// sample is the mean of the two middle values. An empty sample gives `nan`,
/// which the table prints as "n/a".
public enum Statistics {
    /// The median of `sample`.
    public static func median(_ sample: [Double]) -> Double {
        let sorted = sample.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// The `p`-th percentile (0 < p ≤ 100) by nearest rank.
    public static func percentile(_ sample: [Double], _ p: Double) -> Double {
        let sorted = sample.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The 50th percentile (nearest rank; equals the lower median for even counts).
    public static func p50(_ sample: [Double]) -> Double { percentile(sample, 50) }

    /// The 99th percentile (nearest rank).
    public static func p99(_ sample: [Double]) -> Double { percentile(sample, 99) }
}
