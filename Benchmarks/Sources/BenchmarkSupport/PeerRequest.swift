import Foundation

/// What the benchmark runner asks a peer process to measure (JSON on the child's
/// standard input), and what the child answers (``PeerResult``, JSON on its standard
/// output).
///
/// The GRDB peer runs in its own process because libsqlcipher and libsqlite3 export
/// the same `sqlite3_*` symbols: in one executable, one library's code would silently
/// serve both. Everything a workload needs to reproduce the parent's inputs travels in
/// the request: the dataset is regenerated from the seed (``BenchmarkDataset``), and
/// the per-call inputs (patient indexes, prefixes) are sent as they are.
///
/// ```swift
/// let request = PeerRequest(workload: .history, directory: folder.path, patientCount: 10_000,
///                           sessionsPerPatient: 10, seed: SplitMix64.defaultSeed, patientIndexes: picks)
/// ```
public struct PeerRequest: Codable, Sendable {
    /// The workloads a peer knows.
    public enum Workload: String, Codable, Sendable {
        /// Reports the library versions only.
        case versions
        /// W1: insert the dataset in dataset order (chunks of ≈1,000 rows, then one record per transaction).
        case bulkInsert
        /// W2: open an existing database and run a first query.
        case open
        /// W3: a patient's sessions with their diagnoses.
        case history
        /// W4: patients whose surname starts with a prefix, 50 at most.
        case search
        /// W5: read a patient, then update its phone in its own transaction.
        case getUpdate
    }

    public var workload: Workload
    /// A scratch folder the peer may fill (its files are its own).
    public var directory: String
    /// Patients of the dataset (sessions follow: ``sessionsPerPatient`` each).
    public var patientCount: Int
    public var sessionsPerPatient: Int
    /// The dataset's seed.
    public var seed: UInt64
    /// Timed repetitions (W1 runs, W2 opens), or calls for the latency workloads.
    public var iterations: Int
    /// W1's one-record-per-transaction run covers the first this many patients.
    public var perRecordPatients: Int
    /// W3, W5: which patients, by index in the dataset.
    public var patientIndexes: [Int]
    /// W4: the search prefixes, as typed.
    public var prefixes: [String]

    public init(workload: Workload, directory: String, patientCount: Int = 0, sessionsPerPatient: Int = 10,
                seed: UInt64 = SplitMix64.defaultSeed, iterations: Int = 0, perRecordPatients: Int = 0,
                patientIndexes: [Int] = [], prefixes: [String] = []) {
        self.workload = workload
        self.directory = directory
        self.patientCount = patientCount
        self.sessionsPerPatient = sessionsPerPatient
        self.seed = seed
        self.iterations = iterations
        self.perRecordPatients = perRecordPatients
        self.patientIndexes = patientIndexes
        self.prefixes = prefixes
    }

    /// The dataset the request describes (the same rows the parent generated).
    public func dataset() -> BenchmarkDataset {
        BenchmarkDataset(patientCount: patientCount, sessionCount: patientCount * sessionsPerPatient, seed: seed)
    }
}

/// A peer's answer: named figures, named row counts (compared with MedVault's by the
/// runner, which fails the run on a mismatch) and the versions the process really ran.
public struct PeerResult: Codable, Sendable {
    /// `sqlite_version()` as the peer's own connection reports it.
    public var sqliteVersion: String
    /// `PRAGMA cipher_version` on the peer's connection: empty for plain SQLite.
    public var cipherVersion: String
    /// The peer library's version, e.g. "GRDB 7.10.0".
    public var library: String
    /// Figures by name, e.g. "idiomatic.rowsPerSecond", "queue.ms".
    public var figures: [String: Double]
    /// Row counts by name, e.g. "patient", "session", "diagnosis".
    public var counts: [String: Int]

    public init(sqliteVersion: String, cipherVersion: String, library: String,
                figures: [String: Double] = [:], counts: [String: Int] = [:]) {
        self.sqliteVersion = sqliteVersion
        self.cipherVersion = cipherVersion
        self.library = library
        self.figures = figures
        self.counts = counts
    }
}
