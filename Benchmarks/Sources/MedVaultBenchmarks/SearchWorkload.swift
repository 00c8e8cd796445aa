import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore

/// W4 — accent-insensitive prefix search of patients, 50 results.
///
/// Each query is the first three letters of a random patient's first name or first
/// surname as written (accents included: "Núñ", "Ibá", "Jos"). MedVault:
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
        let label = "W4 search of \(clinic.data.patients.count)-patient clinic"
        return [
            Measurement(label: label + " p50 (\(queries) prefixes)", referenceLabel: "raw C",
                        medVault: Statistics.p50(result.medVault), reference: Statistics.p50(result.reference),
                        unit: .microseconds, target: 1.5, note: nil),
            Measurement(label: label + " p99 (\(queries) prefixes)", referenceLabel: "raw C",
                        medVault: Statistics.p99(result.medVault), reference: Statistics.p99(result.reference),
                        unit: .microseconds, target: nil, note: nil),
        ]
    }

    struct Query: Sendable {
        let text: String
        let folded: String
    }

    static func measure(_ clinic: ReadFixtures.Clinic, queries count: Int, context: BenchmarkContext) async throws
        -> (medVault: [Double], reference: [Double])
    {
        var rng = SplitMix64(seed: context.seed).fork(0x5734)
        let queries = (0..<count).map { _ -> Query in
            let patient = clinic.data.patients[Int.random(in: 0..<clinic.data.patients.count, using: &rng)]
            let name = Bool.random(using: &rng) ? patient.firstName : patient.lastName
            let text = String(name.prefix(3))
            return Query(text: text, folded: SearchText.tokens(of: text).joined(separator: " "))
        }
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
