import Foundation

/// The dataset in the order an app records it: a patient, then each of its sessions
/// and that session's diagnosis; cut into chunks of whole patients of about
/// ``rowsPerChunk`` rows (W1's batches). ``BenchmarkDataset`` deals sessions out
/// round-robin, so patient `p` owns sessions `p`, `p + P`, `p + 2P`… (`P` patients).
public struct DatasetOrder: Sendable {
    /// The target size of one batch, in rows of every entity.
    public static let rowsPerChunk = 1_000

    /// Session indexes of each patient, in dataset order.
    public let sessionsOfPatient: [[Int]]
    /// Consecutive patient ranges of ≈``rowsPerChunk`` rows each.
    public let chunks: [Range<Int>]

    public init(_ data: BenchmarkDataset) {
        let patientCount = data.patients.count
        var sessions = [[Int]](repeating: [], count: patientCount)
        for index in data.sessions.indices where patientCount > 0 {
            sessions[index % patientCount].append(index)
        }
        sessionsOfPatient = sessions
        var chunks: [Range<Int>] = []
        var start = 0
        var rows = 0
        for patient in 0..<patientCount {
            rows += 1 + 2 * sessions[patient].count
            if rows >= Self.rowsPerChunk || patient == patientCount - 1 {
                chunks.append(start..<(patient + 1))
                start = patient + 1
                rows = 0
            }
        }
        self.chunks = chunks
    }

    /// The rows (patients, sessions, diagnoses) of the first `patients` patients.
    public func rowCount(ofFirst patients: Int) -> Int {
        sessionsOfPatient.prefix(patients).reduce(0) { $0 + 1 + 2 * $1.count }
    }
}

/// The hand-written search key a developer stores for prefix search: surname then
/// first name, case- and accent-folded ("Núñez Peña, José" → "nunez pena jose"), so
/// a surname prefix is one index range.
public enum NameKey {
    /// The key of a patient.
    public static func of(firstName: String, lastName: String) -> String {
        fold(lastName + " " + firstName)
    }

    /// A typed prefix folded the same way.
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }

    /// The exclusive upper bound of the keys starting with `prefix` (compared as
    /// UTF-8 bytes, SQLite's BINARY collation).
    public static func upperBound(of prefix: String) -> String {
        prefix + "\u{10FFFF}"
    }
}
