import Foundation
import MedVault
import MedVaultKeys

/// W5 — write latency: single-row updates, each its own durable transaction
/// (`synchronous = FULL`: one WAL fsync per commit).
///
/// For now it updates the benchmark's own `bench_counter` table; it will be
/// re-pointed at the patient repository's `update` once that exists. Each side has
/// its own file with the same rows; the sides alternate in blocks of 50 updates
/// (the side that starts alternates too), so a slow stretch of the disk hits both.
/// Each latency is one `pool.write { UPDATE }` round trip, or raw
/// `BEGIN IMMEDIATE; UPDATE; COMMIT` with statements prepared once.
struct WriteLatencyWorkload: Workload {
    let id = "W5"
    let title = "single-row durable update latency"

    static let rowCount = 1_000
    static let blockSize = 50

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let updates = context.scaled(2_000, minimum: 200)
        let warmUps = 20
        let key = context.databaseKey(salt: 5)
        var rng = SplitMix64(seed: context.seed).fork(0x5735)
        let targets = (0..<(updates + warmUps)).map { _ in Int64.random(in: 1...Int64(Self.rowCount), using: &rng) }

        let pool = try await DatabasePool.open(at: context.databaseURL("w5-medvault.db"), key: key.secure,
                                               mode: .createIfMissing, migrator: BenchmarkSchema.migrator)
        try await pool.write { db in
            for id in 1...Int64(Self.rowCount) { try db.execute(BenchmarkSchema.insertCounter, [.integer(id)]) }
        }
        let raw = try RawSQLCipher(path: context.databaseURL("w5-raw.db").path, key: .raw(key.bytes), create: true)
        try BenchmarkSchema.create(on: raw)
        let seed = try raw.prepare(BenchmarkSchema.insertCounter)
        try raw.exec("BEGIN IMMEDIATE")
        for id in 1...Int64(Self.rowCount) {
            try seed.bind(1, id)
            try seed.run()
        }
        try raw.exec("COMMIT")
        let begin = try raw.prepare("BEGIN IMMEDIATE")
        let update = try raw.prepare(BenchmarkSchema.updateCounter)
        let commit = try raw.prepare("COMMIT")

        context.log("W5: \(warmUps) warm-up + \(updates) updates per side, alternating blocks of \(Self.blockSize)")
        var medVault: [Double] = []
        var reference: [Double] = []
        var next = 0
        var block = 0
        while next < targets.count {
            let ids = Array(targets[next..<min(next + Self.blockSize, targets.count)])
            for side in (block.isMultiple(of: 2) ? [0, 1] : [1, 0]) {
                for (offset, id) in ids.enumerated() {
                    let now = Int64(next + offset)
                    let seconds: Double
                    if side == 0 {
                        seconds = try await Stopwatch.seconds {
                            try await pool.write { db in
                                try db.execute(BenchmarkSchema.updateCounter, [.integer(now), .integer(id)])
                            }
                        }
                    } else {
                        seconds = try Stopwatch.seconds {
                            try begin.run()
                            try update.bind(1, now)
                            try update.bind(2, id)
                            try update.run()
                            try commit.run()
                        }
                    }
                    guard next + offset >= warmUps else { continue }
                    if side == 0 { medVault.append(seconds * 1e6) } else { reference.append(seconds * 1e6) }
                }
            }
            next += ids.count
            block += 1
        }
        await pool.close()
        key.secure.wipe()

        let totalMedVault = try sumOfCounters(context.directory.appendingPathComponent("w5-medvault.db"), key: key.bytes)
        let totalRaw = try raw.scalarInt64("SELECT sum(value) FROM bench_counter") ?? -1
        guard totalMedVault == Int64(targets.count), totalRaw == Int64(targets.count) else {
            throw BenchmarkError("W5: expected \(targets.count) increments, found \(totalMedVault) and \(totalRaw)")
        }

        let label = "W5 single-row durable update"
        return [
            Measurement(label: label + " p50 (\(updates) updates)", referenceLabel: "raw C",
                        medVault: Statistics.p50(medVault), reference: Statistics.p50(reference),
                        unit: .microseconds, target: 1.10,
                        note: "own table for now; will be re-pointed at the patient repository"),
            Measurement(label: label + " p99 (\(updates) updates)", referenceLabel: "raw C",
                        medVault: Statistics.p99(medVault), reference: Statistics.p99(reference),
                        unit: .microseconds, target: 1.25, note: nil),
        ]
    }

    /// Reads the MedVault file back through raw C (after the pool closed), to check
    /// every update was committed.
    private func sumOfCounters(_ url: URL, key: [UInt8]) throws -> Int64 {
        let db = try RawSQLCipher(path: url.path, key: .raw(key), role: .reader)
        return try db.scalarInt64("SELECT sum(value) FROM bench_counter") ?? -1
    }
}
