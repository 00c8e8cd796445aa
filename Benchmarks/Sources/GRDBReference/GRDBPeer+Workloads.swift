import BenchmarkSupport
import Foundation
import GRDB

extension GRDBPeer {
    static func run(_ request: PeerRequest) throws -> PeerResult {
        switch request.workload {
        case .versions:
            let queue = try DatabaseQueue()
            return try result(queue)
        case .bulkInsert: return try bulkInsert(request)
        case .open: return try open(request)
        case .history: return try history(request)
        case .search: return try search(request)
        case .getUpdate: return try getUpdate(request)
        }
    }

    private static func path(_ request: PeerRequest, _ name: String) -> String {
        URL(fileURLWithPath: request.directory).appendingPathComponent(name).path
    }

    private static func fileBytes(_ path: String) -> Double {
        ["", "-wal"].reduce(0) { total, suffix in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? NSNumber)?
                .doubleValue ?? 0
            return total + size
        }
    }

    /// A database holding the whole dataset (built through the fastest path, not timed).
    private static func filledPool(_ request: PeerRequest, _ name: String, synchronous: String = "FULL") throws
        -> (DatabasePool, Records)
    {
        let records = Records(request.dataset())
        let pool = try createPool(path(request, name), synchronous: synchronous)
        try insertFastest(records, into: pool)
        return (pool, records)
    }

    // MARK: - W1

    static func bulkInsert(_ request: PeerRequest) throws -> PeerResult {
        let records = Records(request.dataset())
        let rows = Double(records.patients.count + records.sessions.count + records.diagnoses.count)
        let file = path(request, "w1-grdb.db")
        var idiomatic: [Double] = []
        var fastest: [Double] = []
        var counts: [String: Int] = [:]
        var bytes = 0.0
        // Warm-up: one untimed run of each path on a small file.
        let warm = Records(BenchmarkDataset(patientCount: 100, sessionCount: 1_000, seed: request.seed ^ 1))
        try insertIdiomatic(warm, into: createPool(file))
        try insertFastest(warm, into: createPool(file))
        for run in 0..<(2 * max(1, request.iterations)) {
            let idiomaticFirst = run % 4 == 0 || run % 4 == 3
            let pool = try createPool(file)
            let seconds = try Stopwatch.seconds {
                if idiomaticFirst { try insertIdiomatic(records, into: pool) } else { try insertFastest(records, into: pool) }
            }
            if idiomaticFirst { idiomatic.append(rows / seconds) } else { fastest.append(rows / seconds) }
            let stored = try self.counts(pool)
            if counts.isEmpty { counts = stored } else if counts != stored {
                throw PeerFailure("W1: runs stored different row counts")
            }
            // Measured with an empty WAL, as on every side.
            _ = try pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            try pool.close()
            bytes = fileBytes(file)
        }
        let perRecordPool = try createPool(file)
        let perRecordRows = Double(records.order.rowCount(ofFirst: request.perRecordPatients))
        let perRecord = try Stopwatch.seconds {
            try insertPerRecord(records, patients: request.perRecordPatients, into: perRecordPool)
        }
        let stored = try self.counts(perRecordPool)
        counts["perRecordRows"] = stored.values.reduce(0, +)
        let answer = try result(perRecordPool, figures: [
            "idiomatic.rowsPerSecond": Statistics.median(idiomatic),
            "fastest.rowsPerSecond": Statistics.median(fastest),
            "perRecord.rowsPerSecond": perRecordRows / perRecord,
            "fileBytes": bytes,
        ], counts: counts)
        try perRecordPool.close()
        return answer
    }

    // MARK: - W2

    static func open(_ request: PeerRequest) throws -> PeerResult {
        let (pool, _) = try filledPool(request, "w2-grdb.db")
        let file = path(request, "w2-grdb.db")
        let answer = try result(pool, counts: counts(pool))
        try pool.close()
        var queueTimes: [Double] = []
        var poolTimes: [Double] = []
        var seen = 0
        for iteration in 0..<(request.iterations + 3) {
            for side in (iteration.isMultiple(of: 2) ? [0, 1] : [1, 0]) {
                let start = ContinuousClock.now
                let count: Int
                if side == 0 {
                    let queue = try DatabaseQueue(path: file, configuration: configuration())
                    count = try queue.read { try PatientRecord.fetchCount($0) }
                    let elapsed = (ContinuousClock.now - start).seconds * 1_000
                    try queue.close()
                    if iteration >= 3 { queueTimes.append(elapsed) }
                } else {
                    let pool = try DatabasePool(path: file, configuration: configuration())
                    count = try pool.read { try PatientRecord.fetchCount($0) }
                    let elapsed = (ContinuousClock.now - start).seconds * 1_000
                    try pool.close()
                    if iteration >= 3 { poolTimes.append(elapsed) }
                }
                seen = count
            }
        }
        var figures = answer.figures
        figures["queue.ms"] = Statistics.median(queueTimes)
        figures["pool.ms"] = Statistics.median(poolTimes)
        var counts = answer.counts
        counts["firstQuery"] = seen
        return PeerResult(sqliteVersion: answer.sqliteVersion, cipherVersion: answer.cipherVersion,
                          library: library, figures: figures, counts: counts)
    }

    // MARK: - W3

    static func history(_ request: PeerRequest) throws -> PeerResult {
        let (pool, records) = try filledPool(request, "w3-grdb.db")
        var rows = 0
        let latencies = try measure(request.patientIndexes) { index in
            let id = records.patients[index].id
            let page = try pool.read { db in
                try SessionRecord
                    .filter(Column("patient_id") == id)
                    .order(Column("starts_at").desc)
                    .limit(50)
                    .including(all: SessionRecord.diagnoses)
                    .asRequest(of: SessionWithDiagnoses.self)
                    .fetchAll(db)
            }
            return page.count + page.reduce(0) { $0 + $1.diagnoses.count }
        } rows: { rows += $0 }
        let answer = try result(pool, figures: ["p50": Statistics.p50(latencies), "p99": Statistics.p99(latencies)],
                                counts: ["rows": rows])
        try pool.close()
        return answer
    }

    // MARK: - W4

    static func search(_ request: PeerRequest) throws -> PeerResult {
        let (pool, _) = try filledPool(request, "w4-grdb.db")
        var found = 0
        let idiomatic = try measure(Array(request.prefixes.indices)) { index in
            let prefix = NameKey.fold(request.prefixes[index])
            return try pool.read { db in
                try PatientRecord
                    .filter(Column("name_key").like(prefix + "%"))
                    .order(Column("name_key"))
                    .limit(50)
                    .fetchAll(db)
            }.count
        } rows: { found += $0 }
        var rangeFound = 0
        let range = try measure(Array(request.prefixes.indices)) { index in
            let prefix = NameKey.fold(request.prefixes[index])
            return try pool.read { db in
                try PatientRecord
                    .filter(Column("name_key") >= prefix && Column("name_key") < NameKey.upperBound(of: prefix))
                    .order(Column("name_key"))
                    .limit(50)
                    .fetchAll(db)
            }.count
        } rows: { rangeFound += $0 }
        guard found == rangeFound else { throw PeerFailure("W4: LIKE found \(found) rows, the range \(rangeFound)") }
        let answer = try result(pool, figures: [
            "p50": Statistics.p50(idiomatic), "p99": Statistics.p99(idiomatic),
            "range.p50": Statistics.p50(range), "range.p99": Statistics.p99(range),
        ], counts: ["rows": found])
        try pool.close()
        return answer
    }

    // MARK: - W5

    static func getUpdate(_ request: PeerRequest) throws -> PeerResult {
        let data = request.dataset()
        let records = Records(data)
        var pools: [DatabasePool] = []
        for synchronous in ["FULL", "NORMAL"] {
            let pool = try createPool(path(request, "w5-grdb-\(synchronous).db"), synchronous: synchronous)
            try pool.write { db in
                for index in records.patients.indices { try records.keyed(index).insert(db) }
            }
            pools.append(pool)
        }
        var latencies: [[Double]] = [[], []]
        let warmUps = 20
        let blockSize = 50
        var start = 0
        var block = 0
        let indexes = request.patientIndexes
        while start < indexes.count {
            let slice = start..<min(start + blockSize, indexes.count)
            for side in (block.isMultiple(of: 2) ? [0, 1] : [1, 0]) {
                let pool = pools[side]
                for call in slice {
                    let id = records.patients[indexes[call]].id
                    let seconds = try Stopwatch.seconds {
                        guard var patient = try pool.read({ try PatientRecord.fetchOne($0, key: id) }) else {
                            throw PeerFailure("W5: patient missing")
                        }
                        patient.phone = PlainSchema.phone(call)
                        patient.updatedAt += 1
                        try pool.write { try patient.update($0) }
                    }
                    if call >= warmUps { latencies[side].append(seconds * 1e6) }
                }
            }
            start = slice.upperBound
            block += 1
        }
        let updated = try pools.map { pool in
            try pool.read { try Int.fetchOne($0, sql: "SELECT sum(updated_at - created_at) FROM patient") ?? 0 }
        }
        guard updated[0] == indexes.count, updated[1] == indexes.count else {
            throw PeerFailure("W5: \(updated) updates stored, \(indexes.count) made")
        }
        let answer = try result(pools[0], figures: [
            "full.p50": Statistics.p50(latencies[0]), "full.p99": Statistics.p99(latencies[0]),
            "normal.p50": Statistics.p50(latencies[1]), "normal.p99": Statistics.p99(latencies[1]),
        ], counts: ["updates": updated[0]])
        for pool in pools { try pool.close() }
        return answer
    }

    /// Latencies (µs) of `call` over `inputs` after 50 untimed warm-up calls.
    private static func measure(_ inputs: [Int], _ call: (Int) throws -> Int,
                                rows: (Int) -> Void) throws -> [Double] {
        for input in inputs.prefix(50) { _ = try call(input) }
        var latencies: [Double] = []
        latencies.reserveCapacity(inputs.count)
        for input in inputs {
            var found = 0
            latencies.append(try Stopwatch.seconds { found = try call(input) } * 1e6)
            rows(found)
        }
        return latencies
    }
}

/// A peer workload that found something wrong; the runner fails the run with it.
struct PeerFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
