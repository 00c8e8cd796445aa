/// W4's raw reference: the algorithm of MedVault's `PatientSearchIndex` (find the
/// distinct tokens under the prefix; for one token, walk its index rows joined to the
/// patient rows; for several, merge their index rows in patient order a batch at a
/// time and read each candidate's row by rowid) on statements prepared once, for a
/// one-word query of active patients, inside one `BEGIN … COMMIT` read transaction as
/// MedVault's `pool.read` (one snapshot, one lock, instead of one per statement). Rows
/// are copied into ``RawClinic/PatientRow``.
final class RawPatientSearch {
    private struct Candidate {
        let sortKey: String
        let id: [UInt8]
        let rowid: Int64

        func precedes(_ other: Candidate) -> Bool {
            sortKey == other.sortKey
                ? id.lexicographicallyPrecedes(other.id)
                : sortKey.utf8.lexicographicallyPrecedes(other.sortKey.utf8)
        }
    }

    private struct Cursor {
        let token: String
        var buffer: [Candidate] = []
        var position = 0
        var exhausted = false
        var size = RawPatientSearch.batchSize
        var head: Candidate? { position < buffer.count ? buffer[position] : nil }
    }

    static let maxMergedTokens = 32
    static let batchSize: Int64 = 64

    private let begin, commit: RawStatement
    private let firstToken, nextToken, rangeCandidates, firstBatch, nextBatch, patientsByRowid: RawStatement
    private let tokenPatients, tokenPatientsAfter: RawStatement

    init(_ db: RawSQLCipher) throws {
        begin = try db.prepare("BEGIN")
        commit = try db.prepare("COMMIT")
        firstToken = try db.prepare(ClinicSQL.firstToken)
        nextToken = try db.prepare(ClinicSQL.nextToken)
        rangeCandidates = try db.prepare(ClinicSQL.rangeCandidates)
        firstBatch = try db.prepare(ClinicSQL.firstBatch)
        nextBatch = try db.prepare(ClinicSQL.nextBatch)
        patientsByRowid = try db.prepare(ClinicSQL.patientsByRowid)
        tokenPatients = try db.prepare(ClinicSQL.tokenPatients)
        tokenPatientsAfter = try db.prepare(ClinicSQL.tokenPatientsAfter)
    }

    /// The first `limit` active patients holding a token that starts with `prefix` (folded).
    func search(prefix: String, limit: Int) throws -> [RawClinic.PatientRow] {
        try begin.run()
        defer { try? commit.run() }
        let upper = prefix + "\u{10FFFF}"
        var tokens: [String] = []
        try firstToken.bind(1, prefix)
        try firstToken.bind(2, upper)
        var probe = try firstToken.step() ? firstToken.text(at: 0) : nil
        firstToken.reset()
        while let token = probe, tokens.count <= Self.maxMergedTokens {
            tokens.append(token)
            try nextToken.bind(1, token)
            try nextToken.bind(2, upper)
            probe = try nextToken.step() ? nextToken.text(at: 0) : nil
            nextToken.reset()
        }
        if tokens.count == 1 {
            return try patients(holding: tokens[0], limit: limit)
        }
        var cursors: [Cursor]
        if tokens.count > Self.maxMergedTokens {
            try rangeCandidates.bind(1, prefix)
            try rangeCandidates.bind(2, upper)
            cursors = [Cursor(token: "", buffer: try Self.candidates(rangeCandidates), exhausted: true)]
        } else {
            // PatientSearchMerge.firstBatchSize: an even share of the results and two more.
            let first = min(Self.batchSize, Int64(limit / max(tokens.count, 1) + 2))
            cursors = tokens.map { Cursor(token: $0, size: first) }
        }
        var rows: [RawClinic.PatientRow] = []
        var previousID: [UInt8] = []
        var candidatesLeft = true
        while rows.count < limit, candidatesLeft {
            // As many candidates as results are missing, read in one statement.
            var wanted: [Int64] = []
            while wanted.count < min(limit - rows.count, ClinicSQL.patientsPerRead) {
                var smallest: Int?
                for index in cursors.indices {
                    try fill(&cursors[index])
                    guard let head = cursors[index].head else { continue }
                    if let current = smallest, let best = cursors[current].head, !head.precedes(best) { continue }
                    smallest = index
                }
                guard let smallest, let candidate = cursors[smallest].head else {
                    candidatesLeft = false
                    break
                }
                cursors[smallest].position += 1
                guard candidate.id != previousID else { continue }
                previousID = candidate.id
                wanted.append(candidate.rowid)
            }
            guard !wanted.isEmpty else { break }
            for place in 0..<ClinicSQL.patientsPerRead {
                if place < wanted.count {
                    try patientsByRowid.bind(Int32(place + 1), wanted[place])
                } else {
                    try patientsByRowid.bindNull(Int32(place + 1))
                }
            }
            var found: [Int64: RawClinic.PatientRow] = [:]
            while try patientsByRowid.step() {
                found[patientsByRowid.int64(at: 13)] = RawClinic.patient(patientsByRowid)
            }
            patientsByRowid.reset()
            for rowid in wanted {
                if let row = found[rowid], row.deletedAt == nil { rows.append(row) }
            }
        }
        return rows
    }

    /// `PatientSearchIndex.patients(holding:keeping:limit:in:)`: batches of as many
    /// rows as results are missing, each after the previous batch's last index key.
    private func patients(holding token: String, limit: Int) throws -> [RawClinic.PatientRow] {
        var rows: [RawClinic.PatientRow] = []
        var last: (sortKey: String, id: [UInt8])?
        while rows.count < limit {
            let requested = limit - rows.count
            let statement = last == nil ? tokenPatients : tokenPatientsAfter
            try statement.bind(1, token)
            if let last {
                try statement.bind(2, last.sortKey)
                try statement.bind(3, last.sortKey)
                try statement.bind(4, bytes: last.id)
                try statement.bind(5, Int64(requested))
            } else {
                try statement.bind(2, Int64(requested))
            }
            var read = 0
            while try statement.step() {
                read += 1
                if read == requested { last = (statement.text(at: 13), statement.blob(at: 14)) }
                guard !statement.isNull(at: 0) else { continue }
                let row = RawClinic.patient(statement)
                if row.deletedAt == nil { rows.append(row) }
            }
            statement.reset()
            guard read == requested else { break }
        }
        return rows
    }

    private func fill(_ cursor: inout Cursor) throws {
        guard cursor.head == nil, !cursor.exhausted else { return }
        let statement: RawStatement
        if let last = cursor.buffer.last {
            statement = nextBatch
            try statement.bind(1, cursor.token)
            try statement.bind(2, last.sortKey)
            try statement.bind(3, last.sortKey)
            try statement.bind(4, bytes: last.id)
            try statement.bind(5, cursor.size)
        } else {
            statement = firstBatch
            try statement.bind(1, cursor.token)
            try statement.bind(2, cursor.size)
        }
        let requested = cursor.size
        cursor.size = Self.batchSize
        let batch = try Self.candidates(statement)
        cursor.exhausted = batch.count < requested
        if !batch.isEmpty {
            cursor.buffer = batch
            cursor.position = 0
        }
    }

    private static func candidates(_ statement: RawStatement) throws -> [Candidate] {
        var candidates: [Candidate] = []
        while try statement.step() {
            candidates.append(Candidate(sortKey: statement.text(at: 0), id: statement.blob(at: 1),
                                        rowid: statement.int64(at: 2)))
        }
        statement.reset()
        return candidates
    }
}
