/// A failure of the harness itself (bad option, a check that did not hold).
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
