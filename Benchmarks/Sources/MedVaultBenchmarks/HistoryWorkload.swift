import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore

/// W3 — a patient's full history with its diagnoses, materialised as values.
///
/// MedVault: `sessions.history(of: id, after: nil, limit: 50)` (a read transaction:
/// the patient check, the history query, then the page's diagnoses, signatures and
/// addenda with one query each, every row decoded into `ClinicalSession`/`Diagnosis`).
/// Raw C: the same statements in one `BEGIN … COMMIT` on a read-only connection, each
/// row copied into a plain struct.
/// Random patients of the 10,000-patient clinic (10 sessions each).
struct HistoryWorkload: Workload {
    let id = "W3"
    let title = "patient history with diagnoses"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let clinic = try await ReadFixtures.shared.clinic(patientCount: context.scaled(10_000, minimum: 1_000),
                                                          context: context)
        let queries = context.scaled(2_000, minimum: 200)
        let result = try await Self.measure(clinic, queries: queries, context: context)
        let peers = try await Self.measurePeers(clinic, queries: queries, context: context)
        let shortCall = try await Self.measureRoundTrip(clinic, calls: queries, duration: .short)
        let longCall = try await Self.measureRoundTrip(clinic, calls: queries, duration: .long)
        let label = "W3 history of \(clinic.data.patients.count)-patient clinic"
        return [
            Measurement(label: label + " p50 (\(queries) patients)", referenceLabel: "raw C",
                        medVault: Statistics.p50(result.medVault), reference: Statistics.p50(result.reference),
                        unit: .microseconds, target: 1.5,
                        note: "sessions.history(of:after:nil, limit: 50); C plain: the 50 latest sessions, then "
                            + "each one's diagnoses, one read transaction; GRDB: Session.filter(…).order(…)"
                            + ".limit(50).including(all: diagnoses) in pool.read")
                .with(plain: Statistics.p50(peers.plain), plainTarget: 1.3,
                      grdb: try GRDBPeerProcess.figure(peers.grdb, "p50"), grdbTarget: 0.5),
            Measurement(label: label + " p99 (\(queries) patients)", referenceLabel: "raw C",
                        medVault: Statistics.p99(result.medVault), reference: Statistics.p99(result.reference),
                        unit: .microseconds, target: nil, note: nil)
                .with(plain: Statistics.p99(peers.plain), grdb: try GRDBPeerProcess.figure(peers.grdb, "p99")),
            Measurement(label: "W3 diagnostic: empty pool.read p50", referenceLabel: "raw BEGIN; COMMIT",
                        medVault: Statistics.p50(shortCall.medVault), reference: Statistics.p50(shortCall.reference),
                        unit: .microseconds, target: nil,
                        note: "the fixed cost of one short repository call on an idle connection: claiming it, "
                            + "the read transaction, on the calling thread; every W3/W4/W6 call pays it"),
            Measurement(label: "W3 diagnostic: empty pool.read(duration: .long) p50", referenceLabel: "raw BEGIN; COMMIT",
                        medVault: Statistics.p50(longCall.medVault), reference: Statistics.p50(longCall.reference),
                        unit: .microseconds, target: nil,
                        note: "the same on the connection's own thread: a hop there and back, what a long "
                            + "transaction (and a short one finding its connection busy) pays"),
            Measurement(label: "W3 diagnostic: pages read from the file per call (page-cache misses)",
                        referenceLabel: "MedVault's SQL through C", medVault: nil,
                        reference: result.pages.misses, unit: .pages, target: nil,
                        note: "each one read and decrypted; same file, same 8 MiB cache, same patients; "
                            + String(format: "page-cache hits per call: MedVault's SQL %.1f, C plain %.1f",
                                     result.pages.hits, peers.pages.hits))
                .with(plain: peers.pages.misses, grdb: nil),
        ]
    }

    /// The patients whose histories are read, by index (the same for every side).
    static func patientIndexes(_ clinic: ReadFixtures.Clinic, queries: Int, context: BenchmarkContext) -> [Int] {
        var rng = SplitMix64(seed: context.seed).fork(0x5733)
        return (0..<queries).map { _ in Int.random(in: 0..<clinic.data.patients.count, using: &rng) }
    }

    /// The same histories on C plain and GRDB; both must read as many rows as MedVault.
    static func measurePeers(_ clinic: ReadFixtures.Clinic, queries: Int, context: BenchmarkContext) async throws
        -> (plain: [Double], grdb: PeerResult, pages: PageCounts)
    {
        let indexes = patientIndexes(clinic, queries: queries, context: context)
        let url = try await ReadFixtures.shared.plainClinic(of: clinic, context: context)
        let plain = try PlainClinic(at: url, key: clinic.key, create: false)
        var plainRows = 0
        var pages = PageCounts()
        let latencies = try ReadFixtures.measure(indexes) { index in
            _ = plain.db.takePageCounts()
            let rows = try plain.history(of: clinic.data.source.patients[index].id.bytes)
            plainRows += rows.count + rows.reduce(0) { $0 + $1.diagnoses.count }
            pages.add(plain.db.takePageCounts())
        }
        context.log("W3: GRDB peer")
        let grdb = try GRDBPeerProcess.run(PeerRequest(
            workload: .history, directory: context.directory.path, patientCount: clinic.data.patients.count,
            sessionsPerPatient: ReadFixtures.sessionsPerPatient, seed: context.seed, patientIndexes: indexes))
        // Every side reads each patient's 10 sessions and 10 diagnoses; warm-up calls count on C plain.
        let expected = (indexes.count + min(50, indexes.count)) * 2 * ReadFixtures.sessionsPerPatient
        guard plainRows == expected, grdb.counts["rows"] == expected - min(50, indexes.count) * 2 * ReadFixtures.sessionsPerPatient
        else {
            throw BenchmarkError("W3: C plain read \(plainRows) rows, GRDB \(grdb.counts["rows"] ?? -1), expected \(expected)")
        }
        return (latencies, grdb, pages)
    }

    /// `pool.read` with an empty closure vs raw `BEGIN; COMMIT`: the per-call cost.
    static func measureRoundTrip(_ clinic: ReadFixtures.Clinic, calls: Int,
                                 duration: VaultDatabase.ExpectedDuration) async throws
        -> (medVault: [Double], reference: [Double])
    {
        let pool = try await ReadFixtures.openPool(clinic)
        let raw = try RawSQLCipher(path: clinic.url.path, key: .raw(clinic.key), role: .reader)
        let begin = try raw.prepare("BEGIN")
        let commit = try raw.prepare("COMMIT")
        let result = try await Alternating.measure(Array(0..<calls), warmUps: 50, medVault: { _ in
            _ = try await pool.read(duration: duration) { _ in 0 }
        }, reference: { _ in
            try begin.run()
            try commit.run()
        })
        await pool.close()
        return result
    }

    /// Measures `queries` random patients' histories on both sides; checks both read
    /// the same number of sessions and diagnoses.
    static func measure(_ clinic: ReadFixtures.Clinic, queries: Int, context: BenchmarkContext) async throws
        -> (medVault: [Double], reference: [Double], pages: PageCounts)
    {
        let ids = patientIndexes(clinic, queries: queries, context: context).map { clinic.data.patients[$0].id }
        let pool = try await ReadFixtures.openPool(clinic)
        let sessions = SQLCipherClinicalSessionRepository(pool: pool)
        let raw = try RawSQLCipher(path: clinic.url.path, key: .raw(clinic.key), role: .reader)
        let begin = try raw.prepare("BEGIN")
        let commit = try raw.prepare("COMMIT")
        let exists = try raw.prepare(ClinicSQL.patientExists)
        let history = try raw.prepare(ClinicSQL.history)
        let diagnoses = try raw.prepare(ClinicSQL.pageDiagnoses)
        let signatures = try raw.prepare(ClinicSQL.pageSignatures)
        let addenda = try raw.prepare(ClinicSQL.pageAddenda)
        var medVaultRows = 0
        var rawRows = 0
        var pages = PageCounts()
        let limit = 50
        let result = try await Alternating.measure(ids, warmUps: 50, medVault: { id in
            let page = try await sessions.history(of: id, after: nil, limit: limit)
            medVaultRows += page.entries.count + page.entries.reduce(0) { $0 + $1.diagnoses.count }
        }, reference: { id in
            _ = raw.takePageCounts()
            try begin.run()
            try exists.bind(1, bytes: id.bytes)
            guard try exists.step() else { throw BenchmarkError("W3: raw patient missing") }
            exists.reset()
            try history.bind(1, bytes: id.bytes)
            try history.bind(2, Int64(limit + 1))
            var rows: [RawClinic.SessionRow] = []
            while try history.step() { rows.append(RawClinic.session(history)) }
            history.reset()
            let page = rows.prefix(limit)
            if let first = page.first, let last = page.last {
                var position: [[UInt8]: Int] = [:]
                for index in page.indices { position[rows[index].id] = index }
                for statement in [diagnoses, signatures, addenda] {
                    try statement.bind(1, bytes: id.bytes)
                    try statement.bind(2, last.dateMS)
                    try statement.bind(3, first.dateMS)
                    try statement.bind(4, last.dateMS)
                    try statement.bind(5, bytes: last.id)
                    try statement.bind(6, first.dateMS)
                    try statement.bind(7, bytes: first.id)
                }
                while try diagnoses.step() {
                    let diagnosis = RawClinic.diagnosis(diagnoses)
                    if let index = position[diagnosis.sessionID] { rows[index].diagnoses.append(diagnosis) }
                }
                diagnoses.reset()
                // The fixture has no signatures or addenda: both queries return no row.
                while try signatures.step() { throw BenchmarkError("W3: unexpected signature") }
                signatures.reset()
                while try addenda.step() { throw BenchmarkError("W3: unexpected addendum") }
                addenda.reset()
            }
            try commit.run()
            rawRows += rows.count + rows.reduce(0) { $0 + $1.diagnoses.count }
            pages.add(raw.takePageCounts())
        })
        await pool.close()
        guard medVaultRows == rawRows, medVaultRows > 0 else {
            throw BenchmarkError("W3: MedVault read \(medVaultRows) rows, raw C \(rawRows)")
        }
        return (result.medVault, result.reference, pages)
    }
}

/// Page-cache misses and hits of a raw connection, averaged per call.
struct PageCounts {
    private var calls = 0
    private var totalMisses = 0
    private var totalHits = 0

    mutating func add(_ counts: (misses: Int, hits: Int)) {
        calls += 1
        totalMisses += counts.misses
        totalHits += counts.hits
    }

    var misses: Double { calls == 0 ? .nan : Double(totalMisses) / Double(calls) }
    var hits: Double { calls == 0 ? .nan : Double(totalHits) / Double(calls) }
}
