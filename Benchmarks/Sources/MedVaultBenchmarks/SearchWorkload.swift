import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore

/// W4 — accent-insensitive prefix search of patients, 50 results.
///
/// Each query is the first three letters of a random patient's first surname as
/// written (accents included: "Núñ", "Ibá"). MedVault:
/// `patients.search(query, filter: .active, limit: 50)` (folding the query, the token
/// index walk and merge, decoding). Raw C: the same statements and merge
/// (``RawPatientSearch``) with the folded prefix precomputed (`nun`), up to 50 rows,
/// each copied out.
struct SearchWorkload: Workload {
    let id = "W4"
    let title = "accent-insensitive prefix search"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let clinic = try await ReadFixtures.shared.clinic(patientCount: context.scaled(10_000, minimum: 1_000),
                                                          context: context)
        let queries = context.scaled(2_000, minimum: 200)
        let result = try await Self.measure(clinic, queries: queries, context: context)
        let prefixes = Self.queries(clinic, count: queries, context: context).map(\.text)
        let url = try await ReadFixtures.shared.plainClinic(of: clinic, context: context)
        let plainClinic = try PlainClinic(at: url, key: clinic.key, create: false)
        var plainRows = 0
        let plain = try ReadFixtures.measure(prefixes) { plainRows += try plainClinic.search($0).count }
        context.log("W4: GRDB peer")
        let grdb = try GRDBPeerProcess.run(PeerRequest(
            workload: .search, directory: context.directory.path, patientCount: clinic.data.patients.count,
            sessionsPerPatient: ReadFixtures.sessionsPerPatient, seed: context.seed, prefixes: prefixes))
        let warmRows = try prefixes.prefix(50).reduce(0) { $0 + (try plainClinic.search($1).count) }
        guard plainRows > 0, grdb.counts["rows"] == plainRows - warmRows else {
            throw BenchmarkError("W4: C plain found \(plainRows - warmRows) patients, GRDB \(grdb.counts["rows"] ?? -1)")
        }
        let label = "W4 search of \(clinic.data.patients.count)-patient clinic"
        return [
            Measurement(label: label + " p50 (\(queries) surname prefixes)", referenceLabel: "raw C",
                        medVault: Statistics.p50(result.medVault), reference: Statistics.p50(result.reference),
                        unit: .microseconds, target: 1.5,
                        note: "MedVault: patients.search(prefix, filter: .active, limit: 50) (any name token); "
                            + "C plain: name_key range, LIMIT 50 (surname first); GRDB: "
                            + "filter(Column(\"name_key\").like(prefix + \"%\")).order(…).limit(50)")
                .with(plain: Statistics.p50(plain), plainTarget: 2,
                      grdb: try GRDBPeerProcess.figure(grdb, "p50"), grdbTarget: 0.5),
            Measurement(label: label + " p99 (\(queries) surname prefixes)", referenceLabel: "raw C",
                        medVault: Statistics.p99(result.medVault), reference: Statistics.p99(result.reference),
                        unit: .microseconds, target: nil, note: nil)
                .with(plain: Statistics.p99(plain), grdb: try GRDBPeerProcess.figure(grdb, "p99")),
            Measurement(label: "W4 search p99 ÷ its own p50", referenceLabel: "", medVault:
                            Statistics.p99(result.medVault) / Statistics.p50(result.medVault), reference: nil,
                        unit: .ratio, target: 3, targetIsAbsolute: true, note: nil),
            Measurement(label: "W4 GRDB name_key range instead of LIKE (diagnostic) p50", referenceLabel: "raw C",
                        medVault: Statistics.p50(result.medVault), reference: nil, unit: .microseconds, target: nil,
                        note: "GRDB: filter(Column(\"name_key\") >= prefix && < upper bound), the query C plain runs")
                .with(plain: nil, grdb: try GRDBPeerProcess.figure(grdb, "range.p50")),
        ] + (try await Self.shortPrefixes(clinic, queries: queries, plainClinic: plainClinic, context: context))
    }

    /// The search as a user types: the first one and two letters of surnames, against the
    /// same raw C search and the plain schema's name-key range (no targets yet: #36).
    static func shortPrefixes(_ clinic: ReadFixtures.Clinic, queries: Int, plainClinic: PlainClinic,
                              context: BenchmarkContext) async throws -> [Measurement] {
        var measurements: [Measurement] = []
        for letters in [1, 2] {
            let result = try await measure(clinic, queries: queries, letters: letters, context: context)
            let prefixes = Self.queries(clinic, count: queries, letters: letters, context: context).map(\.text)
            let plain = try ReadFixtures.measure(prefixes) { _ = try plainClinic.search($0) }
            let label = "W4 search, \(letters)-letter surname prefixes"
            measurements += [
                Measurement(label: label + " p50", referenceLabel: "raw C", medVault: Statistics.p50(result.medVault),
                            reference: Statistics.p50(result.reference), unit: .microseconds, target: nil, note: nil)
                    .with(plain: Statistics.p50(plain), grdb: nil),
                Measurement(label: label + " p99", referenceLabel: "raw C", medVault: Statistics.p99(result.medVault),
                            reference: Statistics.p99(result.reference), unit: .microseconds, target: nil, note: nil)
                    .with(plain: Statistics.p99(plain), grdb: nil),
            ]
        }
        return measurements
    }

    struct Query: Sendable {
        let text: String
        let folded: String
    }

    /// The first `letters` letters of a random patient's first surname, as written
    /// ("Núñ", "Ibá"), the same for every side.
    static func queries(_ clinic: ReadFixtures.Clinic, count: Int, letters: Int = 3,
                        context: BenchmarkContext) -> [Query] {
        var rng = SplitMix64(seed: context.seed).fork(0x5734)
        return (0..<count).map { _ -> Query in
            let patient = clinic.data.patients[Int.random(in: 0..<clinic.data.patients.count, using: &rng)]
            let text = String(patient.lastName.prefix(letters))
            return Query(text: text, folded: SearchText.tokens(of: text).joined(separator: " "))
        }
    }

    static func measure(_ clinic: ReadFixtures.Clinic, queries count: Int, letters: Int = 3,
                        context: BenchmarkContext) async throws -> (medVault: [Double], reference: [Double])
    {
        let queries = queries(clinic, count: count, letters: letters, context: context)
        let pool = try await ReadFixtures.openPool(clinic)
        let patients = SQLCipherPatientRepository(pool: pool)
        let raw = try RawSQLCipher(path: clinic.url.path, key: .raw(clinic.key), role: .reader)
        let search = try RawPatientSearch(raw)
        let limit = 50
        var medVaultRows = 0
        var rawRows = 0
        let result = try await Alternating.measure(queries, warmUps: 50, medVault: { query in
            medVaultRows += try await patients.search(query.text, filter: .active, limit: limit).count
        }, reference: { query in
            rawRows += try search.search(prefix: query.folded, limit: limit).count
        })
        await pool.close()
        guard medVaultRows == rawRows, medVaultRows > 0 else {
            throw BenchmarkError("W4: MedVault found \(medVaultRows) patients, raw C \(rawRows)")
        }
        return result
    }
}
