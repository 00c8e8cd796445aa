import BenchmarkSupport
import Foundation
@_spi(Benchmarks) import MedVault
import MedVaultCore
import MedVaultKeys

/// A call taken apart (issue #36 item 0): the same calls a workload measured, run once
/// more on a vault opened with a ``StatementProbe``, so every statement, its steps' time
/// inside SQLCipher and its pages are counted, sorted by what it touches, with the
/// connections opened, the statements prepared and each write's hand-off. What none of
/// these accounts for is the rest: the Swift layer (validation, encoding and decoding,
/// MACs, files, locks, actors). Figures are means per call, so the parts add up to the
/// whole; the whole is this pass's mean, which sits above the workload's p50 by the
/// tail (checkpoint rounds, slow `fsync`s) and the probe's own clock reads.
enum ProbeBreakdown {
    /// W5's get + update: the vault in `folder` opened with the probe, 20 warm-up calls,
    /// then `calls` measured ones.
    static func update(folder: URL, password: String, calls: Int,
                       _ call: @Sendable (Vault, Int) async throws -> Void) async throws -> [Measurement] {
        let probe = StatementProbe()
        var database = DatabaseConfiguration()
        database._statementProbe = probe
        let vault = try await Vault.open(at: folder, password: try Password(password),
                                         options: Vault.Options(database: database))
        for index in 0..<20 { try await call(vault, index) }
        probe.reset()
        let seconds = try await Stopwatch.seconds {
            for index in 0..<calls { try await call(vault, 20 + index) }
        }
        // Before the lock: its audit entry and its checkpoint are not the calls'.
        let totals = probe.current
        await vault.lock()
        return try rows(totals, label: "W5 per get + update (diagnostic, mean of \(calls), probed)",
                        calls: calls, writesPerCall: 1, seconds: seconds)
    }

    /// W2's `Vault.open(at:secretStore:)` + `patients.count(filter: .all)`, `opens` times
    /// with a probe; closing is neither timed nor counted.
    static func open(folder: URL, store: any SecretStore, patients: Int, opens: Int) async throws -> [Measurement] {
        let probe = StatementProbe()
        var database = DatabaseConfiguration()
        database._statementProbe = probe
        var totals = StatementProbe.Totals()
        var seconds = 0.0
        for _ in 0..<opens {
            probe.reset()
            var vault: Vault?
            var count = 0
            seconds += try await Stopwatch.seconds {
                let opened = try await Vault.open(at: folder, secretStore: store, options: Vault.Options(database: database))
                vault = opened
                count = try await opened.patients.count(filter: .all)
            }
            totals.add(probe.current)
            await vault?.lock()
            guard count == patients else { throw BenchmarkError("W2 breakdown: the vault counted \(count)") }
        }
        return try rows(totals, label: "W2 per Vault.open + count (diagnostic, mean of \(opens), probed)",
                        calls: opens, writesPerCall: nil, seconds: seconds)
    }

    /// The parts of `totals`, `calls` calls that took `seconds` in all, each making
    /// `writesPerCall` writes when given (checked: a probe that saw other writes measured
    /// something else).
    static func rows(_ totals: StatementProbe.Totals, label: String, calls: Int, writesPerCall: Int?,
                     seconds: Double) throws -> [Measurement] {
        guard totals.statements.values.reduce(0, +) > 0 else {
            throw BenchmarkError("\(label): the probe saw no statement")
        }
        if let writesPerCall, totals.writes != calls * writesPerCall {
            throw BenchmarkError("\(label): the probe saw \(totals.writes) writes for \(calls) calls")
        }
        let perCall = { (value: Double) in value / Double(calls) }
        let wall = perCall(seconds * 1e6)
        func line(_ part: String, _ value: Double, _ unit: MeasureUnit, _ note: String) -> Measurement {
            Measurement(label: "\(label): \(part)", referenceLabel: "raw C", medVault: value, reference: nil,
                        unit: unit, target: nil, note: note)
        }
        var lines = [line("whole call", wall, .microseconds,
                          "the parts below add up to it (means, so they add); above the unprobed p50 by the tail")]
        var accounted = 0.0
        for category in StatementProbe.Category.allCases {
            let micro = perCall(Double(totals.nanoseconds[category] ?? 0) / 1e3)
            accounted += micro
            lines.append(line("stepping in SQLCipher, \(category.rawValue)", micro, .microseconds,
                              String(format: "%.1f %% of the call; %.2f statements a call", 100 * micro / wall,
                                     perCall(Double(totals.statements[category] ?? 0)))))
        }
        let handOff = perCall(Double(totals.handOffNanoseconds) / 1e3)
        let opening = perCall(Double(totals.connectionOpenNanoseconds) / 1e3)
        let preparing = perCall(Double(totals.prepareNanoseconds) / 1e3)
        accounted += handOff + opening + preparing
        lines.append(line("opening connections (open, key, cipher settings, schema read)", opening, .microseconds,
                          String(format: "%.1f %% of the call; %.2f connections a call", 100 * opening / wall,
                                 perCall(Double(totals.connectionsOpened)))))
        lines.append(line("preparing statements", preparing, .microseconds,
                          String(format: "%.1f %% of the call; %.2f prepared a call (each once per connection)",
                                 100 * preparing / wall, perCall(Double(totals.prepares)))))
        lines.append(line("write hand-off (write called → body runs)", handOff, .microseconds,
                          String(format: "%.1f %% of the call", 100 * handOff / wall)))
        lines.append(line("the rest (Swift: validation, coding, MACs, files, locks, actors; scripts)", wall - accounted,
                          .microseconds, String(format: "%.1f %% of the call", 100 * (wall - accounted) / wall)))
        lines.append(line("statements", perCall(Double(totals.statements.values.reduce(0, +))), .statements,
                          String(format: "top-level; and %.2f trigger programs they started",
                                 perCall(Double(totals.triggerPrograms)))))
        lines.append(line("pages read from the file", perCall(Double(totals.pagesRead)), .pages,
                          String(format: "cache misses, each decrypted; %.1f pages found in the cache",
                                 perCall(Double(totals.pageCacheHits)))))
        lines.append(line("pages written", perCall(Double(totals.pagesWritten)), .pages, "to the WAL, at commit"))
        return lines
    }
}

extension StatementProbe.Totals {
    /// Adds `other`'s counts to these.
    mutating func add(_ other: StatementProbe.Totals) {
        statements.merge(other.statements, uniquingKeysWith: +)
        nanoseconds.merge(other.nanoseconds, uniquingKeysWith: +)
        triggerPrograms += other.triggerPrograms
        pageCacheHits += other.pageCacheHits
        pagesRead += other.pagesRead
        pagesWritten += other.pagesWritten
        writes += other.writes
        handOffNanoseconds += other.handOffNanoseconds
        connectionsOpened += other.connectionsOpened
        connectionOpenNanoseconds += other.connectionOpenNanoseconds
        prepares += other.prepares
        prepareNanoseconds += other.prepareNanoseconds
    }
}
