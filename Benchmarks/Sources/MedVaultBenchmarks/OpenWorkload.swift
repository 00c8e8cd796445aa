import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// W2 — open an existing database and run a first query, repeated.
///
/// Three variants, interleaved in rotating order within each iteration:
/// - MedVault: `VaultDatabase.open(.openExisting, migrator: MedVaultSchema.migrator)`
///   as the `Vault` opens it (writer connection, schema check), then a first query
///   through the repository, `patients.count(filter: .all)` (the pool's first read,
///   served by the idle writer: no read connection is opened);
/// - raw C with the `x'…'` raw key, on the same file: one connection, MedVault's
///   settings, the same query;
/// - raw C with a passphrase (SQLCipher's own PBKDF2 key derivation, compiled-in
///   iteration count), on a second file with the same rows;
/// - diagnostic: raw C running the same statements on the same single connection as
///   the pool (a writer that reads `user_version`, then the query in a read
///   transaction), which separates the Swift
///   layer's own cost (threads, actors, checks) from SQLCipher's.
/// The figure is the median over the iterations; closing is not timed.
struct OpenWorkload: Workload {
    let id = "W2"
    let title = "open an existing database and run a first query"

    static let firstQuery = ClinicSQL.countPatients
    static let passphrase = "Contraseña de prueba: ñandú, pingüino, acción"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let iterations = context.scaled(50, minimum: 11)
        let warmUps = 3
        let data = ClinicData(patientCount: context.scaled(1_000, minimum: 200), sessionCount: 0,
                              seed: context.seed)
        let fixture = try await ClinicFixture.capture(in: context)
        let key = context.databaseKey(salt: 2)
        let medVaultURL = context.databaseURL("w2-rawkey.db")
        let passphraseURL = context.databaseURL("w2-passphrase.db")

        context.log("W2: creating \(data.patients.count) patients in two databases")
        try fixture.build(at: medVaultURL, key: .raw(key.bytes), data: data)
        try fixture.build(at: passphraseURL, key: .passphrase(Self.passphrase), data: data)

        let expected = Int64(data.patients.count)
        var medVault: [Double] = []
        var rawKey: [Double] = []
        var passphrase: [Double] = []
        var rawPair: [Double] = []
        context.log("W2: \(warmUps) warm-up + \(iterations) measured iterations of 4 variants")
        for iteration in 0..<(warmUps + iterations) {
            var times = [0.0, 0.0, 0.0, 0.0]
            for step in 0..<4 {
                let variant = (iteration + step) % 4
                switch variant {
                case 0: times[0] = try await openMedVault(medVaultURL, key: key.secure, expected: expected)
                case 1: times[1] = try openRaw(medVaultURL, key: .raw(key.bytes), expected: expected)
                case 2: times[2] = try openRaw(passphraseURL, key: .passphrase(Self.passphrase), expected: expected)
                default: times[3] = try openRaw(medVaultURL, key: .raw(key.bytes), expected: expected, likePool: true)
                }
            }
            guard iteration >= warmUps else { continue }
            medVault.append(times[0] * 1_000)
            rawKey.append(times[1] * 1_000)
            passphrase.append(times[2] * 1_000)
            rawPair.append(times[3] * 1_000)
        }
        key.secure.wipe()

        let label = "W2 open + first query (median of \(iterations))"
        return [
            Measurement(label: label, referenceLabel: "raw C, x'…' key",
                        medVault: Statistics.median(medVault), reference: Statistics.median(rawKey),
                        unit: .milliseconds, target: 1.5,
                        note: "both open one connection: MedVault's first read runs on its idle writer"),
            Measurement(label: label, referenceLabel: "raw C, passphrase (PBKDF2)",
                        medVault: Statistics.median(medVault), reference: Statistics.median(passphrase),
                        unit: .milliseconds, target: 0.02,
                        note: "target: at least 50× faster than SQLCipher's own passphrase derivation"),
            Measurement(label: label, referenceLabel: "raw C, same statements as the pool (diagnostic)",
                        medVault: Statistics.median(medVault), reference: Statistics.median(rawPair),
                        unit: .milliseconds, target: nil,
                        note: "same connection and statements as the pool, so this ratio is the Swift layer alone "
                            + "(threads, actors, checks)"),
        ]
    }

    private func openMedVault(_ url: URL, key: SecureBytes, expected: Int64) async throws -> Double {
        var pool: VaultDatabase?
        var count: Int64?
        let seconds = try await Stopwatch.seconds {
            let opened = try await VaultDatabase.open(at: url, key: key, mode: .openExisting,
                                                     migrator: MedVaultSchema.migrator, keyIsAuthenticated: true)
            pool = opened
            count = Int64(try await SQLCipherPatientRepository(pool: opened).count(filter: .all))
        }
        await pool?.close()
        guard count == expected else { throw BenchmarkError("W2: MedVault read \(count ?? -1) rows, expected \(expected)") }
        return seconds
    }

    /// Opens one writer connection and queries (or, `likePool`, runs on it what the
    /// pool runs: the schema version read, then the query in a read transaction, as
    /// the pool's first read on its idle writer).
    private func openRaw(_ url: URL, key: RawSQLCipher.Key, expected: Int64, likePool: Bool = false) throws -> Double {
        var db: RawSQLCipher?
        var count: Int64?
        let seconds = try Stopwatch.seconds {
            let opened = try RawSQLCipher(path: url.path, key: key)
            db = opened
            if likePool {
                _ = try opened.scalarInt64("PRAGMA user_version")
                try opened.exec("BEGIN DEFERRED;")
            }
            let query = try opened.prepare(Self.firstQuery)
            count = try query.step() ? query.int64(at: 0) : nil
            if likePool {
                query.reset()
                try opened.exec("COMMIT;")
            }
        }
        withExtendedLifetime(db) {} // closes after this line, outside the timed region
        guard count == expected else { throw BenchmarkError("W2: raw C read \(count ?? -1) rows, expected \(expected)") }
        return seconds
    }
}
