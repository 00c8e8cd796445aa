// Entry point of the benchmark executable; see BenchmarkCommand for the options
// and docs/benchmarks-method.md for how the figures are measured.
import ArgumentParser

/// Runs the command through AsyncParsableCommand's async entry point (top-level
/// code would otherwise pick ParsableCommand's synchronous `main()`).
func runBenchmarks() async {
    await BenchmarkCommand.main()
}

await runBenchmarks()
