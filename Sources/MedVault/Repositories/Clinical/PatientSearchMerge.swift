import Foundation
import MedVaultCore

/// One row of `patient_search_token`: a patient's position in patient order and the
/// rowid to read it by.
struct PatientSearchCandidate {
    let sortKey: String
    let id: UUID
    let rowid: Int64

    init(row: VaultRow) throws {
        sortKey = row.text(at: 0)
        id = try row[1]
        rowid = row.int64(at: 2)
    }

    /// Patient order, as SQLite's `ORDER BY sort_key, patient_id` sees it: the key's
    /// UTF-8 bytes, then the identifier's 16 bytes.
    func precedes(_ other: PatientSearchCandidate) -> Bool {
        if sortKey != other.sortKey {
            return sortKey.utf8.lexicographicallyPrecedes(other.sortKey.utf8)
        }
        return withUnsafeBytes(of: id.uuid) { mine in
            withUnsafeBytes(of: other.id.uuid) { theirs in mine.lexicographicallyPrecedes(theirs) }
        }
    }
}

/// The candidates of a search in patient order: a k-way merge of the index rows of a
/// few tokens, each token's rows read in patient order a batch at a time (keyset
/// pagination on (sort_key, patient_id)), or one range already read and sorted.
struct PatientSearchMerge {
    /// Rows read per token and batch after the first: a search usually wants 50
    /// results, and a batch is one index range read.
    static let batchSize = 64

    /// The first batch of each of `tokenCount` tokens when `wanted` rows are wanted in
    /// all: an even share and two more (the same patient under two tokens, a filtered
    /// row), never more than ``batchSize``. Three tokens for 50 results read 3 × 18
    /// rows, not 3 × 64; a token holding most matches reads its next batch when needed.
    static func firstBatchSize(tokenCount: Int, wanted: Int) -> Int {
        min(batchSize - 2, wanted / max(tokenCount, 1)) + 2
    }

    static let firstBatch = """
        SELECT sort_key, patient_id, patient_rowid FROM patient_search_token \
        WHERE token = ? ORDER BY sort_key, patient_id LIMIT ?
        """
    /// (sort_key, patient_id) > (?, ?) without row values; the first term bounds the range.
    static let nextBatch = """
        SELECT sort_key, patient_id, patient_rowid FROM patient_search_token \
        WHERE token = ? AND sort_key >= ? AND (sort_key > ? OR patient_id > ?) \
        ORDER BY sort_key, patient_id LIMIT ?
        """

    private struct Cursor {
        let token: String
        var buffer: ArraySlice<PatientSearchCandidate> = []
        var last: PatientSearchCandidate?
        var exhausted = false
        /// Rows the next batch reads.
        var size = PatientSearchMerge.batchSize

        /// Refills an empty buffer with the token's next batch.
        mutating func fill(_ db: DatabaseConnection) throws {
            guard buffer.isEmpty, !exhausted else { return }
            let requested = size
            size = PatientSearchMerge.batchSize
            let limit = VaultValue.integer(Int64(requested))
            let batch: [PatientSearchCandidate]
            if let last {
                batch = try db.fetchAll(nextBatch, [.text(token), .text(last.sortKey), .text(last.sortKey),
                                                    last.id.vaultValue, limit], PatientSearchCandidate.init(row:))
            } else {
                batch = try db.fetchAll(firstBatch, [.text(token), limit], PatientSearchCandidate.init(row:))
            }
            exhausted = batch.count < requested
            last = batch.last ?? last
            buffer = batch[...]
        }
    }

    private var cursors: [Cursor]

    /// Merges the index rows of `tokens`, read as needed, `wanted` of them in all as a rule.
    init(tokens: [String], wanted: Int) {
        let first = Self.firstBatchSize(tokenCount: tokens.count, wanted: wanted)
        cursors = tokens.map { Cursor(token: $0, size: first) }
    }

    /// Yields `sorted`, already in patient order.
    init(sorted: [PatientSearchCandidate]) {
        cursors = [Cursor(token: "", buffer: sorted[...], last: nil, exhausted: true)]
    }

    /// The smallest head among the tokens, removed from its cursor.
    mutating func next(_ db: DatabaseConnection) throws -> PatientSearchCandidate? {
        var smallest: Int?
        for index in cursors.indices {
            try cursors[index].fill(db)
            guard let head = cursors[index].buffer.first else { continue }
            if let current = smallest, let best = cursors[current].buffer.first, !head.precedes(best) { continue }
            smallest = index
        }
        guard let smallest else { return nil }
        return cursors[smallest].buffer.popFirst()
    }
}
