import BenchmarkSupport
import Foundation

/// S — how W3 (history) and W4 (search) grow with the clinic: the same measurement
/// on clinics of 1,000, 10,000 and 100,000 patients (× scale), 10 sessions each.
///
/// A history read is a few index lookups, so its cost should grow with the B-tree
/// depth only (logarithmically). A 3-letter prefix search returns the first 50 of
/// the matches in name order; the number of matches grows with the clinic, but the
/// ordered token index reads the few tokens under the prefix already in name order,
/// so its cost too should grow with the depth only.
/// The growth line's "MedVault" and "reference" are MedVault's p50 on the largest and
/// the middle clinic, so its ratio is the growth (target < 2× from 10k to 100k); the
/// raw-C growth follows for comparison.
struct ScaleWorkload: Workload {
    let id = "S"
    let title = "history and search cost as the clinic grows"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let sizes = [1_000, 10_000, 100_000].map { context.scaled($0, minimum: 100) }
        let queries = context.scaled(2_000, minimum: 200)
        var history: [(medVault: Double, reference: Double)] = []
        var search: [(medVault: Double, reference: Double)] = []
        var lines: [Measurement] = []
        for size in sizes {
            let clinic = try await ReadFixtures.shared.clinic(patientCount: size, context: context)
            let h = try await HistoryWorkload.measure(clinic, queries: queries, context: context)
            let s = try await SearchWorkload.measure(clinic, queries: queries, context: context)
            history.append((Statistics.p50(h.medVault), Statistics.p50(h.reference)))
            search.append((Statistics.p50(s.medVault), Statistics.p50(s.reference)))
            lines.append(Measurement(label: "S history p50, \(size) patients", referenceLabel: "raw C",
                                     medVault: history.last?.medVault, reference: history.last?.reference,
                                     unit: .microseconds, target: nil, note: nil))
            lines.append(Measurement(label: "S search p50, \(size) patients", referenceLabel: "raw C",
                                     medVault: search.last?.medVault, reference: search.last?.reference,
                                     unit: .microseconds, target: nil, note: nil))
        }
        let (middle, largest) = (sizes[1], sizes[2])
        for (name, series) in [("history", history), ("search", search)] {
            lines.append(Measurement(label: "S \(name) growth, p50 at \(largest)", referenceLabel: "p50 at \(middle)",
                                     medVault: series[2].medVault, reference: series[1].medVault,
                                     unit: .microseconds, target: 2.0,
                                     note: String(format: "raw C grows %.2f× over the same step",
                                                  series[2].reference / series[1].reference)))
        }
        return lines
    }
}
