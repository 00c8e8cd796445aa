import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The note index inside a vault (issue #38, item 4): encrypted on disk, kept by every
/// path that writes sessions (sync, import, backup and restore, the migration).
@Suite("Session note search in the vault", .timeLimit(.minutes(2)))
struct SessionNoteSearchTests {
    static let day: TimeInterval = 86_400

    static func search(_ vault: Vault, _ query: String, patient: UUID? = nil) async throws -> [UUID] {
        try await vault.sessions.searchNotes(query, patientID: patient, after: nil, limit: 100).sessions.map(\.id)
    }

    @Test("The index is encrypted: neither the note nor its folded words appear in any file, with the WAL or after lock")
    func noPlaintextOnDisk() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.file("vault"), password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            let patient = try await vault.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            // The index stores folded words: scan for the note and for its folding.
            let note = "Insomnio ZZNÓTEMÁRKER persistente"
            let session = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: Date(), notes: note))
            #expect(try await Self.search(vault, "zznotemarker") == [session.id])
            #expect(try await Self.search(vault, "insomnio", patient: patient.id) == [session.id])
            let markers = ["ZZNÓTEMÁRKER", "zznotemarker", "ZZNOTEMARKER", "zznótemárker"].map { Data($0.utf8) }
            func leaks() throws -> [String] {
                try FileManager.default.contentsOfDirectory(atPath: vault.layout.folder.path).filter { name in
                    let data = try Data(contentsOf: vault.layout.folder.appendingPathComponent(name))
                    return markers.contains { data.range(of: $0) != nil }
                }
            }
            #expect(try leaks() == [])
            await vault.lock()
            #expect(try leaks() == [])
        }
    }

    @Test("A document holds each folded word once, in order of first use; an edit that drops one of a word's uses still finds it")
    func documentsHoldDistinctWords() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.file("vault"), password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            let patient = try await vault.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            var session = try await vault.sessions.create(ClinicalSession(
                patientID: patient.id, date: ClinicalFixtures.now, notes: "ánimo BAJO; sueño y ánimo",
                chiefComplaint: "Ánimo bajo", treatmentPlan: "Sueño"))
            let id = session.id
            func document() async throws -> String? {
                try await vault.database.read { db in
                    try db.fetchOne("""
                        SELECT w.words FROM session_note_search w JOIN session_note_document d ON d.docid = w.docid \
                        WHERE d.session_id = ?
                        """, [id.vaultValue]) { $0.text(at: 0) }
                }
            }
            #expect(try await document() == "animo bajo sueno y")
            #expect(try await Self.search(vault, "anim baj") == [session.id])
            session.notes = "sueño"
            session = try await vault.sessions.update(session)
            #expect(try await document() == "animo bajo sueno")
            #expect(try await Self.search(vault, "animo sueno") == [session.id], "the complaint still says it")
            session.chiefComplaint = nil
            session = try await vault.sessions.update(session)
            #expect(try await Self.search(vault, "animo") == [])
            #expect(try await Self.search(vault, "suen") == [session.id])
            await vault.lock()
        }
    }

    @Test("A document's words are the folded tokens of its texts, each once by its bytes, in order of first use, on Latin text and on text Foundation folds")
    func documentWordsMatchTheReference() {
        // The reference: every token as a String, deduplicated by bytes, joined.
        func reference(_ texts: [String]) -> String {
            var seen = Set<[UInt8]>()
            return texts.flatMap(SearchText.tokens(of:)).filter { seen.insert(Array($0.utf8)).inserted }
                .joined(separator: " ")
        }
        let pool = ["José", "jose", "JOSÉ", "Jose\u{301}", "Núñez", "niño", "ﬁn", "Straße", "Σοφία", "ΣΟΦΊΑ",
                    "ǅemal", "Øre", "42", "x2", "sueño", "SUEÑO", "año", "Ⅻ", "😀", "", "é",
                    // 15, 16 and 17 bytes once folded (the short words' limit is 16), and longer.
                    "abcdefghijklmnñ", "abcdefghijklmnop", "ABCDEFGHIJKLMNOPQ", "abcdefghijklmnopq",
                    // Two 16-byte words differing only in the last byte, and their 15-byte prefix.
                    "abcdefghijklmnoq", "abcdefghijklmno",
                    "electroencefalografía", "ELECTROENCEFALOGRAFIA", "desoxirribonucleico"]
        let separators = [" ", ", ", ".\n", "-", "/", "  ", "¿", "!"]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let texts = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                (0..<Int.random(in: 0...30, using: &rng)).map { _ in
                    pool.randomElement(using: &rng)! + separators.randomElement(using: &rng)!
                }.joined()
            }
            #expect(Array(SessionNoteIndex.words(of: texts).utf8) == Array(reference(texts).utf8), "\(texts)")
        }
    }

    @Test("After a backup and restore, each word still finds its own session, though a deleted session left a gap; edits keep the index right")
    func backupAndRestoreKeepDocuments() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.file("vault"), password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            let patient = try await vault.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            var sessions: [ClinicalSession] = []
            for (index, word) in ["alfa", "bravo", "charlie", "delta"].enumerated() {
                sessions.append(try await vault.sessions.create(ClinicalSession(
                    patientID: patient.id, date: ClinicalFixtures.now.addingTimeInterval(Double(index) * Self.day),
                    notes: "Palabra \(word)")))
            }
            // The first session's row goes, leaving a gap before the others.
            try await vault.sessions.delete(sessions[0].id)
            try await vault.backup(to: dir.file("backup"))
            await vault.lock()
            try await Vault.restore(from: dir.file("backup"), to: dir.file("restored"),
                                    password: try VaultFixtures.password(), options: VaultFixtures.options)
            let restored = try await Vault.open(at: dir.file("restored"), password: try VaultFixtures.password(),
                                                options: VaultFixtures.options)
            #expect(try await Self.search(restored, "alfa") == [])
            #expect(try await Self.search(restored, "bravo") == [sessions[1].id])
            #expect(try await Self.search(restored, "charlie") == [sessions[2].id])
            #expect(try await Self.search(restored, "delta") == [sessions[3].id])
            var edited = try await restored.sessions.get(sessions[2].id)
            edited.notes = "Palabra eco"
            _ = try await restored.sessions.update(edited)
            #expect(try await Self.search(restored, "charlie") == [])
            #expect(try await Self.search(restored, "eco") == [sessions[2].id])
            #expect(try await Self.search(restored, "delta") == [sessions[3].id], "another session's words stay")
            #expect(try await Self.search(restored, "palabra") == [sessions[3].id, sessions[2].id, sessions[1].id])
            await restored.lock()
        }
    }

    @Test("Imported sessions and addenda are searchable")
    func importIndexes() async throws {
        try await withTemporaryDirectory { dir in
            let source = try await Vault.create(at: dir.file("source"), password: try VaultFixtures.password(),
                                                options: VaultFixtures.options).vault
            try await source.professional.save(SigningConformanceTests.professional)
            let patient = try await source.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            let session = try await source.sessions.create(ClinicalSession(
                patientID: patient.id, date: ClinicalFixtures.now, notes: "Insomnio"))
            _ = try await source.sessions.sign(session.id, version: session.version)
            _ = try await source.sessions.addAddendum(to: session.id, reason: "Corrección", text: "Bruxismo")
            let document = try await source.exportRecord(of: patient.id)
            await source.lock()
            let target = try await Vault.create(at: dir.file("target"), password: try VaultFixtures.password(),
                                                options: VaultFixtures.options).vault
            try await target.importRecords([document])
            #expect(try await Self.search(target, "insomnio bruxismo") == [session.id])
            await target.lock()
        }
    }

    @Test("Sessions and addenda that arrive through sync are searchable on the other device; a synced edit and delete follow")
    func syncIndexes() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let (a, b) = (devices.vaults[0], devices.vaults[1])
            try await a.professional.save(SigningConformanceTests.professional)
            let patient = try await a.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            var signed = try await a.sessions.create(ClinicalSession(
                patientID: patient.id, date: ClinicalFixtures.now, status: .scheduled, notes: "Insomnio"))
            let other = try await a.sessions.create(ClinicalSession(
                patientID: patient.id, date: ClinicalFixtures.now.addingTimeInterval(Self.day), notes: "Cefalea"))
            try await devices.syncAll()
            #expect(try await Self.search(b, "insomnio") == [signed.id], "the batch insert path")
            signed.notes = "Insomnio y pesadillas"
            signed = try await a.sessions.update(signed)
            _ = try await a.sessions.sign(signed.id, version: signed.version)
            _ = try await a.sessions.addAddendum(to: signed.id, reason: "Corrección", text: "Bruxismo")
            try await a.sessions.delete(other.id)
            try await devices.syncAll()
            #expect(try await Self.search(b, "pesadillas bruxismo") == [signed.id], "updates and a synced addendum")
            #expect(try await Self.search(b, "cefalea") == [])
        }
    }

    @Test("A note respelled with a combining accent reaches the other device byte for byte, though Swift calls the two spellings equal")
    func respelledNoteSyncs() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let (a, b) = (devices.vaults[0], devices.vaults[1])
            let patient = try await a.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            var session = try await a.sessions.create(ClinicalSession(
                patientID: patient.id, date: ClinicalFixtures.now, notes: "Jos\u{E9}"))
            try await devices.syncAll()
            session.notes = "Jose\u{301}"
            session = try await a.sessions.update(session)
            try await devices.syncAll()
            let id = session.id
            for vault in [a, b] {
                let stored = try await vault.database.read { db in
                    try db.fetchOne("SELECT hex(notes) FROM clinical_session WHERE id = ?", [id.vaultValue]) { $0.text(at: 0) }
                }
                #expect(stored == "4A6F7365CC81")
            }
        }
    }

    @Test("The migration indexes the sessions and addenda stored before it")
    func migrationBackfills() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("vault.db")
        let key = SecureBytes.random(count: 32)
        let migrations = MedVaultSchema.migrator.migrations
        let index = try #require(migrations.firstIndex { $0.name == "session note search" })
        let before = SchemaMigrator(Array(migrations.prefix(index)))
        let patient = ClinicalFixtures.patient("Ana", "Ruiz")
        let session = ClinicalSession(patientID: patient.id, date: ClinicalFixtures.now, chiefComplaint: "Ansiedad")
        let old = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing, migrator: before)
        try await old.write { db in
            try db.execute(ClinicalRows.insertPatient, ClinicalRows.insertArguments(patient))
            try db.execute(ClinicalRows.insertSession, ClinicalRows.insertArguments(session))
            try db.execute("""
                INSERT INTO session_addendum (id, session_id, author_id, author_name, created_at, reason, text) \
                VALUES (?, ?, ?, 'Dra. Ruiz', 0, 'Corrección', 'Añade rumiación')
                """, [UUID().vaultValue, session.id.vaultValue, UUID().vaultValue])
        }
        await old.close()
        let pool = try await VaultDatabase.open(at: url, key: key, mode: .openExisting, migrator: MedVaultSchema.migrator)
        let sessions = SQLCipherClinicalSessionRepository(pool: pool)
        let found = try await sessions.searchNotes("ansiedad rumiacion", patientID: nil, after: nil, limit: 10)
        #expect(found.sessions.map(\.id) == [session.id])
        await pool.close()
    }

    /// The two ways a search matches — the FTS4 index across the practice, `SearchText`
    /// within one patient — agree on every word and prefix of awkward text.
    @Test("Scoped and practice-wide searches agree on every word and prefix of accented, combining, ligature and mixed text")
    func scopedAndPracticeWideAgree() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.file("vault"), password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            let texts = [
                "La paciente refiere INSOMNIO de conciliación; ánimo bajo, anhedonia.",
                "Núñez-Ibáñez, O'Brien y l·l: pérdida de interés (DSM-5, 6A70).",
                "Cafe\u{301} con leche; Straße; ﬁnal; ÆSIR œuvre; naïve coöperation.",
                "Ελληνικά κείμενα και Кириллица; 日本語のテキスト; emoji 😀 x2 3.5mg",
                "Tabs\tand\nnew lines; año 2024—guion largo – corto; comillas «así» “así”.",
            ]
            var sessions: [(ClinicalSession, UUID)] = []
            for (index, text) in texts.enumerated() {
                let patient = try await vault.patients.create(ClinicalFixtures.patient("P\(index)", "Q\(index)"))
                sessions.append((try await vault.sessions.create(ClinicalSession(
                    patientID: patient.id, date: ClinicalFixtures.now.addingTimeInterval(Double(index) * Self.day),
                    notes: text)), patient.id))
            }
            var queries = Set<String>()
            for text in texts {
                for word in text.split(whereSeparator: { $0 == " " }) {
                    queries.insert(String(word))
                    queries.insert(String(word.prefix(2)))
                    queries.insert(String(word.uppercased().prefix(4)))
                }
            }
            var compared = 0
            for query in queries.sorted() {
                let all = try await vault.sessions.searchNotes(query, patientID: nil, after: nil, limit: 100).sessions
                for (session, patientID) in sessions {
                    let scoped = try await vault.sessions.searchNotes(query, patientID: patientID, after: nil, limit: 100)
                    #expect(scoped.sessions.map(\.id) == all.filter { $0.patientID == patientID }.map(\.id),
                            "query \(query.debugDescription), session \(session.id)")
                    compared += 1
                }
            }
            #expect(compared > 100)
            await vault.lock()
        }
    }

    @Test("Across the practice, sorting the matches and walking documents newest first give the same pages, ties and moved dates included")
    func bothPracticePlansAgree() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.file("vault"), password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            var patients: [UUID] = []
            for index in 0..<3 { patients.append(try await vault.patients.create(ClinicalFixtures.patient("P\(index)", "Q")).id) }
            // 60 sessions; every third shares its date with the one before (ties broken by id).
            var sessions: [ClinicalSession] = []
            for index in 0..<60 {
                let hours = Double(index - index / 3) * 3_600
                let words = (index.isMultiple(of: 2) ? "insomnio " : "") + (index.isMultiple(of: 7) ? "bruxismo" : "cefalea")
                sessions.append(try await vault.sessions.create(ClinicalSession(
                    patientID: patients[index % 3], date: ClinicalFixtures.now.addingTimeInterval(hours), notes: words)))
            }
            // A date moved: the document's copy follows (by trigger).
            var moved = sessions[0]
            moved.date = ClinicalFixtures.now.addingTimeInterval(1_000 * 3_600)
            moved = try await vault.sessions.update(moved)
            func expected(_ word: String) -> [UUID] {
                let all = sessions.map { $0.id == moved.id ? moved : $0 }
                return all.filter { SearchText.matches(query: word, in: [$0.notes]) }
                    .sorted { ClinicalSession.newer($0.date.millisecondsSince1970, $0.id, than: $1.date.millisecondsSince1970, $1.id) }
                    .map(\.id)
            }
            for word in ["insomnio", "bruxismo", "cefa", "nada"] {
                let match = try #require(FullTextQuery.matchExpression(word))
                for walkAbove in [0, 10_000] {
                    var pages: [UUID] = []
                    var cursor: [VaultValue] = []
                    while true {
                        let page = try await vault.database.read { [cursor] db in
                            try SessionNoteIndex.practice(match, cursorArguments: cursor, wanted: 7, walkAbove: walkAbove, in: db)
                        }
                        pages += page.map(\.id)
                        guard page.count == 7, let last = page.last else { break }
                        let date = VaultValue.integer(last.date.millisecondsSince1970)
                        cursor = [date, date, last.id.vaultValue]
                    }
                    #expect(pages == expected(word), "\(word), walk above \(walkAbove)")
                }
            }
            #expect(try await Self.search(vault, "insomnio").first == moved.id)
            // A hostile page size neither traps nor exceeds SQLite's bound parameters.
            let everything = try await vault.sessions.searchNotes("cefalea", patientID: nil, after: nil, limit: .max)
            #expect(everything.sessions.count == expected("cefalea").count && everything.nextCursor == nil)
            let scoped = try await vault.sessions.searchNotes("cefalea", patientID: patients[0], after: nil, limit: .max)
            #expect(scoped.sessions.count == 17)
            await vault.lock()
        }
    }
}
