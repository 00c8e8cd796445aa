/// One benchmark: measures MedVault and its reference in the same process and
/// returns one ``Measurement`` per figure.
///
/// To add a workload (W3 history, K2 password change…): write a type conforming to
/// `Workload` in its own file and add an instance to ``WorkloadRegistry/all``. It is
/// then selectable with `--only <id>` and appears in the table in registry order.
///
/// ```swift
/// struct HistoryWorkload: Workload {
///     let id = "W3"
///     let title = "patient history"
///     func run(in context: BenchmarkContext) async throws -> [Measurement] { … }
/// }
/// ```
protocol Workload: Sendable {
    /// The short identifier used by `--only` and in the table, e.g. "W2".
    var id: String { get }
    /// What it measures, in a few words.
    var title: String { get }

    /// Sets up its data under `context.directory`, measures both sides, returns the figures.
    ///
    /// - Throws: Any error; the run records it as a failure and goes on with the next workload.
    func run(in context: BenchmarkContext) async throws -> [Measurement]
}
