import ArgumentParser
import BenchmarkSupport
import Foundation

/// `MedVaultBenchmarks`: runs the workloads, prints the result table and writes it
/// as Markdown.
///
/// ```
/// swift run -c release MedVaultBenchmarks --output docs/benchmarks.md
/// swift run -c release MedVaultBenchmarks --scale 0.1 --only W2,K1
/// ```
struct BenchmarkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "MedVaultBenchmarks",
        abstract: "Measure MedVault against raw SQLCipher C (same SQL, plain schema), GRDB and bare libargon2.",
        discussion: """
            Every figure is compared with a reference measured in the same run; the ratio is \
            MedVault's cost divided by the reference's. See docs/benchmarks-method.md.
            """
    )

    @Option(help: "Multiply data sizes and iteration counts (1.0 = full run, 0.1 = CI smoke run).")
    var scale: Double = 1.0

    @Option(help: "Write the Markdown report to this file.")
    var output: String?

    @Option(help: "Run only these workloads, comma-separated (e.g. W2,K1; W1…W6, C, K1…K3, S, M).")
    var only: String?

    func validate() throws {
        guard scale > 0, scale.isFinite else { throw ValidationError("--scale must be a positive number") }
        do {
            _ = try WorkloadRegistry.select(only: onlyList)
        } catch let error as BenchmarkError {
            throw ValidationError(error.description)
        }
    }

    private var onlyList: [String]? {
        only.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
    }

    func run() async throws {
        let workloads = try WorkloadRegistry.select(only: onlyList)
        let machine = MachineInfo.current()
        let started = Date()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("medvault-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = BenchmarkContext(scale: scale, directory: directory, seed: SplitMix64.defaultSeed)

        var table = ResultTable()
        // Each process must run the library it should: SQLCipher here, plain SQLite in the GRDB peer.
        guard !machine.sqlcipherVersion.hasPrefix("unknown") else {
            throw BenchmarkError("this process does not run SQLCipher (no PRAGMA cipher_version)")
        }
        let peer = try GRDBPeerProcess.run(PeerRequest(workload: .versions, directory: directory.path))
        let versions = [
            ("MedVaultBenchmarks process (MedVault, C same SQL, C plain)",
             "SQLCipher \(machine.sqlcipherVersion), sqlite_version() \(machine.sqliteVersion)"),
            ("GRDBReference process (GRDB)",
             "\(peer.library), sqlite_version() \(peer.sqliteVersion), no cipher_version (plain SQLite)"),
        ]
        for (name, value) in versions {
            table.addContext(name, value)
            FileHandle.standardError.write(Data("\(name): \(value)\n".utf8))
        }
        for workload in workloads {
            FileHandle.standardError.write(Data("▶ \(workload.id) \(workload.title)\n".utf8))
            let start = ContinuousClock.now
            do {
                table.append(contentsOf: try await workload.run(in: context))
            } catch {
                table.recordFailure(workload: workload.id, message: String(describing: error))
            }
            let elapsed = String(format: "%.1f", (ContinuousClock.now - start).seconds)
            FileHandle.standardError.write(Data("  done in \(elapsed) s\n".utf8))
        }

        print("MedVault benchmarks — scale \(scale), \(machine.cpuModel), \(machine.coreCount) cores, "
              + "SQLCipher \(machine.sqlcipherVersion), SQLite \(machine.sqliteVersion); "
              + "GRDB peer: \(peer.library), SQLite \(peer.sqliteVersion)")
        print(table.renderText())
        if let output {
            let url = URL(fileURLWithPath: output)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try table.renderMarkdown(machine: machine, scale: scale, date: started)
                .write(to: url, atomically: true, encoding: .utf8)
            print("Report written to \(output)")
        }
        if !table.failures.isEmpty { throw ExitCode.failure }
    }
}
