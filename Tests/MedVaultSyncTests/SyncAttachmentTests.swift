import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Attachment contents through sync: each 64 KiB chunk in its own envelope, sealed
/// before its attachment's metadata, staged on the receiver until the attachment can be
/// completed with its size and SHA-256 checked (docs/sync.md, "Attachments").
@Suite("Sync engine: attachment contents")
struct SyncAttachmentTests {
    typealias F = SyncAttachmentFixtures
    static let chunk = SQLCipherAttachmentRepository.chunkByteCount

    @Test("A multi-chunk, an exactly-one-chunk, a tiny and an empty attachment arrive byte for byte on a second device and on a third that clones later")
    func contentsArrive() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(3, in: dir)
            defer { Task { await devices.lockAll() } }
            let a = devices.vaults[0]
            let session = try await F.session(on: a)
            let contents = [F.content(300 * 1024, seed: 1), F.content(Self.chunk, seed: 2),
                            F.content(10, seed: 3), Data()]
            var stored: [MedVaultCore.Attachment] = []
            for (n, content) in contents.enumerated() {
                stored.append(try await F.attach(content, to: session, on: a, fileName: "file-\(n).bin"))
            }
            let pushed = try await devices.engines[0].sync()
            // 5 + 1 + 1 + 0 chunk envelopes, and patient, session and 4 attachments.
            #expect(pushed.uploaded == 7 + 6)

            let b = devices.vaults[1]
            let pulled = try await devices.engines[1].sync()
            #expect(pulled.errors.isEmpty)
            #expect(pulled.conflicts == 0)
            #expect(pulled.uploaded == 0, "nothing is echoed back")
            for (attachment, content) in zip(stored, contents) {
                #expect(try await b.attachments.get(attachment.id) == attachment)
                #expect(try await F.read(attachment.id, on: b) == content)
                #expect(try await F.chunkRows(attachment.id, on: b)
                            == SyncAttachmentStore.chunkCount(byteCount: Int64(content.count)))
            }
            #expect(try await b.attachments.list(sessionID: session.id) == a.attachments.list(sessionID: session.id))
            #expect(try await F.staged(b) == (0, 0))

            // A third device that syncs only now clones everything, contents included.
            let c = devices.vaults[2]
            #expect(try await devices.engines[2].sync().errors.isEmpty)
            for (attachment, content) in zip(stored, contents) {
                #expect(try await F.read(attachment.id, on: c) == content)
            }
            #expect(try await F.staged(c) == (0, 0))
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1] && exports[1] == exports[2])

            // Syncing again moves nothing: no chunk is sealed twice.
            for engine in devices.engines {
                let again = try await engine.sync()
                #expect(again.uploaded == 0 && again.downloaded == 0)
            }
            #expect(try await F.chunkRows(stored[0].id, on: c) == 5)
        }
    }

    @Test("Pushes stay within the server's body limit (chunks ~117 KiB of JSON each); a push over it is refused with `limitExceeded`; pull pages stop at their byte limit")
    func byteLimits() async throws {
        try await withTemporaryDirectory { dir in
            let limit = 400 * 1024
            let server = InMemorySyncTransport(maximumPushBytes: limit, maximumPullBytes: 300 * 1024)
            let devices = try await SyncDevices.make(2, in: dir, server: server)
            defer { Task { await devices.lockAll() } }
            let a = devices.vaults[0]
            let session = try await F.session(on: a)
            let content = F.content(1024 * 1024 + 7, seed: 4)
            let attachment = try await F.attach(content, to: session, on: a)

            // An engine that believes the default 8 MiB: its push is refused, nothing stored.
            let careless = SyncEngine(vault: a, transport: server)
            let refused = await SyncFixtures.errorCode { _ = try await careless.sync() }
            #expect(refused == .limitExceeded)
            #expect(await server.envelopeCount(vaultID: a.vaultID) == 0)

            let engine = SyncEngine(vault: a, transport: server, maximumPushBytes: limit)
            let result = try await engine.sync()
            #expect(result.uploaded == 17 + 3)
            let sizes = await server.pushBodySizes().dropFirst()
            #expect(sizes.count >= 6, "17 chunks of ~117 KiB in pushes of at most 400 KiB")
            #expect(sizes.allSatisfy { $0 <= limit }, "push bodies: \(Array(sizes))")

            // Pull pages: at most 300 KiB of ciphertext (3 chunks), `hasMore` until the end.
            let credentials = try #require(try await devices.engines[1].credentials())
            let page = try await server.pull(after: 0, limit: 500, as: credentials)
            #expect(page.hasMore)
            #expect(page.envelopes.count < 20)
            #expect(page.envelopes.reduce(0) { $0 + $1.envelope.ciphertext.count } <= 300 * 1024)

            let b = devices.vaults[1]
            #expect(try await devices.engines[1].sync().errors.isEmpty)
            #expect(try await F.read(attachment.id, on: b) == content)
        }
    }

    @Test("A server whose byte-cut page lets a later short envelope slip in (a gap in its sequences): the engine keeps the page up to the gap and pulls the rest, so no chunk is skipped")
    func gappyServerPage() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let a = devices.vaults[0]
            let session = try await F.session(on: a)
            let content = F.content(600 * 1024, seed: 17)
            let attachment = try await F.attach(content, to: session, on: a)
            _ = try await devices.engines[0].sync()
            let gappy = GappyPullTransport(devices.server, maximumPullBytes: 300 * 1024)
            let credentials = try #require(try await devices.engines[1].credentials())
            let raw = try await gappy.pull(after: 0, limit: 200, as: credentials)
            #expect(raw.envelopes.last?.sequence == raw.lastSequence)
            #expect(raw.lastSequence > Int64(raw.envelopes.count), "the stand-in really leaves a gap")
            #expect(SyncEngine.consecutive(raw).envelopes.count < raw.envelopes.count)

            let engine = SyncEngine(vault: devices.vaults[1], transport: gappy)
            let result = try await engine.sync()
            #expect(result.errors.isEmpty)
            #expect(result.downloaded == 10 + 3)
            #expect(try await F.read(attachment.id, on: devices.vaults[1]) == content)
        }
    }

    @Test("Metadata before its chunks (another order than the sealer's): the attachment stays invisible and survives the open-time clean-up until the last chunk completes it, which logs an update for observers")
    func metadataBeforeChunks() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let a = devices.vaults[0]
            let session = try await F.session(on: a)
            let content = F.content(140 * 1024, seed: 18)
            let attachment = try await F.attach(content, to: session, on: a)
            _ = try await devices.engines[0].sync()
            let credentials = try #require(try await devices.engines[0].credentials())
            let page = try await devices.server.pull(after: 0, limit: 500, as: credentials)
            let items = try await a.withSyncKeys { keys in
                let sealer = EnvelopeSealer(keys: keys)
                return try page.envelopes.map {
                    RemoteChangeApplier.PageItem(sequence: $0.sequence, envelopeID: $0.envelope.id,
                                                 record: try sealer.open($0.envelope))
                }
            }
            let chunks = items.filter { $0.record.table == AttachmentChunkRecord.table }
            #expect(chunks.count == 3)
            let others = items.filter { $0.record.table != AttachmentChunkRecord.table }

            let b = devices.vaults[1]
            let device = try #require(try await devices.engines[1].credentials()).deviceID
            let first = try await b.database.write { db in
                try RemoteChangeApplier.applyPage(others, localDevice: device, now: Date(), db)
            }
            #expect(first.1.isEmpty)
            #expect(await SyncFixtures.errorCode { _ = try await b.attachments.get(attachment.id) } == .notFound)
            #expect(try await F.staged(b) == (1, 0))
            #expect(try await b.attachments.removeIncompleteAttachmentsIfSQLCipher() == 0)

            let logged = try await b.database.read { db in try SyncRecordStore.latestSequence(db) }
            let second = try await b.database.write { db in
                try RemoteChangeApplier.applyPage(Array(chunks.reversed()), localDevice: device, now: Date(), db)
            }
            #expect(second.1.isEmpty)
            #expect(second.0.applied == 3)
            #expect(try await F.read(attachment.id, on: b) == content)
            #expect(try await F.staged(b) == (0, 0))
            let entries = try await b.database.read { db in try SyncRecordStore.changeEntries(after: logged, limit: 10, db) }
            #expect(entries.map(\.table) == [.attachment])
            #expect(entries.map(\.recordID) == [attachment.id])
            #expect(entries.map(\.operation) == [.update])
            // Its audit entry names the device the chunks came from (issue #31, item 4).
            let audited = try await b.audit.entries(limit: 100).filter { $0.entityID == attachment.id }
            #expect(audited.map(\.action) == [.create, .update])
            #expect(audited.allSatisfy { $0.syncedFrom == credentials.deviceID })
        }
    }

    @Test("One flipped bit in one chunk envelope: that attachment stays unavailable (`notFound`, staged, kept at reopen), listed as `corrupted`; the other attachment and the records apply; its remote deletion drops what was staged")
    func flippedChunk() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            let a = devices.vaults[0]
            let session = try await F.session(on: a)
            let damaged = try await F.attach(F.content(200 * 1024, seed: 5), to: session, on: a)
            let intact = F.content(1000, seed: 6)
            let kept = try await F.attach(intact, to: session, on: a)
            let patient = try await a.patients.create(ClinicalFixtures.patient("Eva", "Gil"))
            _ = try await devices.engines[0].sync()
            let target = try await Self.sequence(ofChunk: 1, of: damaged.id, devices: devices)
            try await devices.server.tamper(vaultID: a.vaultID, sequence: target) { ciphertext in
                var bytes = ciphertext
                bytes[bytes.count / 2] ^= 0x01
                return bytes
            }

            var b = devices.vaults[1]
            let result = try await devices.engines[1].sync()
            #expect(result.errors.map(\.code) == [.corrupted])
            #expect(result.errors.first?.sequence == target)
            #expect(await SyncFixtures.errorCode { _ = try await b.attachments.get(damaged.id) } == .notFound)
            #expect(await SyncFixtures.errorCode { _ = try await b.attachments.content(of: damaged.id) } == .notFound)
            #expect(try await b.attachments.list(sessionID: session.id).map(\.id) == [kept.id])
            #expect(try await F.read(kept.id, on: b) == intact)
            #expect(try await b.patients.get(patient.id).firstName == "Eva")
            #expect(try await F.staged(b) == (1, 3))

            // The open-time clean-up of crashed writes leaves a received attachment alone.
            let folder = dir.file("device-1")
            await b.lock()
            b = try await Vault.open(at: folder, password: try VaultFixtures.password(), options: VaultFixtures.options)
            #expect(try await F.staged(b) == (1, 3))

            // Deleted on the sending device: the staged content goes too.
            try await a.attachments.delete(damaged.id)
            _ = try await devices.engines[0].sync()
            let engineB = SyncEngine(vault: b, transport: devices.server)
            #expect(try await engineB.sync().errors.isEmpty)
            #expect(try await F.staged(b) == (0, 0))
            #expect(try await b.database.read { db in
                try db.fetchOne("SELECT count(*) FROM attachment WHERE id = ?", [damaged.id.vaultValue]) { $0.int64(at: 0) }
            } == 0)
            await a.lock()
            await b.lock()
            await devices.vaults[1].lock()
        }
    }

    @Test("A chunk missing from the sender's own storage: its seal fails with `corrupted` and nothing reaches the server (no metadata without its content)")
    func senderMissingChunk() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let a = devices.vaults[0]
            let session = try await F.session(on: a)
            _ = try await devices.engines[0].sync()
            let before = try await devices.server.pull(after: 0, limit: 500,
                                                       as: try #require(await devices.engines[0].credentials())).envelopes.count
            let broken = try await F.attach(F.content(150 * 1024, seed: 10), to: session, on: a)
            try await a.database.write { db in
                try db.execute("DELETE FROM attachment_chunk WHERE attachment_id = ? AND seq = 1", [broken.id.vaultValue])
            }
            #expect(await SyncFixtures.errorCode { _ = try await devices.engines[0].sync() } == .corrupted)
            let after = try await devices.server.pull(after: 0, limit: 500,
                                                      as: try #require(await devices.engines[0].credentials())).envelopes.count
            #expect(after == before)
        }
    }

    @Test("Chunks that open but do not match the attachment's size and SHA-256 (the sender's storage altered): the attachment stays unavailable, listed as `corrupted`, never shown with wrong bytes")
    func digestMismatch() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let a = devices.vaults[0]
            let session = try await F.session(on: a)
            let altered = try await F.attach(F.content(150 * 1024, seed: 7), to: session, on: a)
            let other = F.content(70 * 1024, seed: 8)
            let fine = try await F.attach(other, to: session, on: a)
            try await a.database.write { db in
                try db.execute("UPDATE attachment_chunk SET data = ? WHERE attachment_id = ? AND seq = 1",
                               [.blob(F.content(Self.chunk, seed: 9)), altered.id.vaultValue])
            }
            _ = try await devices.engines[0].sync()
            let b = devices.vaults[1]
            let result = try await devices.engines[1].sync()
            #expect(result.errors.map(\.code) == [.corrupted])
            #expect(await SyncFixtures.errorCode { _ = try await b.attachments.get(altered.id) } == .notFound)
            #expect(try await F.chunkRows(altered.id, on: b) == 0)
            #expect(try await F.read(fine.id, on: b) == other)
            #expect(try await F.staged(b) == (1, 0), "the wrong chunks are dropped, the attachment stays incoming")
        }
    }

    @Test("No marker inside attachment content (UTF-8, UTF-16), file name, attachment id or table name is in any byte handed to the transport")
    func markerScan() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            await server.recordRequestBytes()
            let devices = try await SyncDevices.make(2, in: dir, server: server)
            defer { Task { await devices.lockAll() } }
            let a = devices.vaults[0]
            let session = try await F.session(on: a)
            let marker = ClinicalFixtures.marker
            let utf16 = Data(marker.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
            // The markers repeat through three chunks, also across a chunk boundary.
            var content = Data()
            while content.count < 3 * Self.chunk { content += Data(marker.utf8) + utf16 + Data("\n".utf8) }
            let attachment = try await F.attach(content, to: session, on: a, fileName: marker + ".txt")
            try await devices.syncAll()
            #expect(try await F.read(attachment.id, on: devices.vaults[1]) == content)

            let bodies = await server.recordedRequestBytes()
            let scanned = await SyncFixtures.bytesSeen(by: server)
            #expect(scanned.count > bodies.count + 4)
            var needles: [Data] = [Data(marker.utf8), utf16, Data(marker.lowercased().utf8),
                                   Data("attachment".utf8), Data(Data(marker.utf8).base64EncodedString().prefix(12).utf8)]
            needles += [Data(attachment.id.uuidString.utf8), Data(attachment.id.uuidString.lowercased().utf8),
                        withUnsafeBytes(of: attachment.id.uuid) { Data($0) }]
            for haystack in scanned {
                for needle in needles { #expect(haystack.range(of: needle) == nil) }
            }
        }
    }

    @Test("An attachment synced before contents travelled (metadata only): the device that sealed it sends its chunks once after the upgrade, and the other device completes it in place")
    func attachmentSyncedBeforeContents() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let (a, b) = (devices.vaults[0], devices.vaults[1])
            let session = try await F.session(on: a)
            let content = F.content(130 * 1024, seed: 12)
            let old = try await F.attach(content, to: session, on: a)
            try await devices.syncAll()
            let fromB = try await F.attach(F.content(500, seed: 13), to: session, on: b)
            try await devices.syncAll()
            // Play the previous version: B got the metadata only, and A's upgrade lists
            // what it sealed (the migration's own statement).
            try await b.database.write { db in
                try db.execute("DELETE FROM attachment_chunk WHERE attachment_id = ?", [old.id.vaultValue])
            }
            #expect(await SyncFixtures.errorCode { _ = try await F.read(old.id, on: b) } == .corrupted)
            let listed = try await a.database.write { db in
                try db.execute(SyncAttachmentStagingSchema.listResends)
                return try db.fetchAll("SELECT attachment_id FROM sync_attachment_resend") { try UUID(row: $0, column: 0) }
            }
            #expect(listed == [old.id], "only what A sealed, not B's attachment \(fromB.id)")

            #expect(try await devices.engines[0].sync().uploaded == 3)
            let pulled = try await devices.engines[1].sync()
            #expect(pulled.errors.isEmpty && pulled.conflicts == 0)
            #expect(try await F.read(old.id, on: b) == content)
            #expect(try await F.chunkRows(old.id, on: b) == 3)
            #expect(try await F.staged(b) == (0, 0))
            #expect(try await b.attachments.get(old.id) == old)
            #expect(try await devices.engines[0].sync().uploaded == 0, "sent once")
        }
    }

    @Test("Malformed chunk records are refused: a payload without content, over 64 KiB or with a negative index does not parse; staging refuses them with `validation`; an applied page lists an unreadable chunk as `corrupted` and stages nothing")
    func malformedChunks() async throws {
        let id = UUID()
        let chunk = AttachmentChunkRecord(attachmentID: id, seq: 3, data: F.content(100, seed: 14))
        #expect(AttachmentChunkRecord(payload: chunk.payload) == chunk)
        #expect(AttachmentChunkRecord(payload: chunk.payload.prefix(AttachmentChunkRecord.headerLength)) == nil)
        #expect(AttachmentChunkRecord(payload: Data(count: 10)) == nil)
        let tooLong = AttachmentChunkRecord(attachmentID: id, seq: 0, data: F.content(Self.chunk + 1, seed: 15))
        #expect(AttachmentChunkRecord(payload: tooLong.payload) == nil)
        var negative = chunk.payload
        negative[16] = 0x80
        #expect(AttachmentChunkRecord(payload: negative) == nil)

        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            for (seq, data) in [(Int64(-1), Data([1])), (0, Data()), (0, F.content(Self.chunk + 1, seed: 16))] {
                let code = await SyncFixtures.errorCode {
                    try await vault.database.write { db in _ = try SyncAttachmentStore.stage(id, seq: seq, data: data, origin: nil, db) }
                }
                #expect(code == .validation)
            }
            let record = SyncRecord(table: AttachmentChunkRecord.table, recordID: UUID(), version: 1, operation: "insert",
                                    timestamp: 1, deviceID: UUID(), state: Data([1, 2, 3]))
            let (outcome, errors) = try await vault.database.write { db in
                try RemoteChangeApplier.applyPage([.init(sequence: 7, envelopeID: UUID(), record: record)],
                                                  localDevice: UUID(), now: Date(), db)
            }
            #expect(outcome.applied == 0, "an unreadable chunk is not counted as applied")
            #expect(errors.map(\.code) == [.corrupted])
            #expect(errors.first?.sequence == 7)
            #expect(try await F.staged(vault) == (0, 0))
        }
    }

    /// The server sequence of chunk `seq` of attachment `id`, found by opening every
    /// envelope with the vault's keys.
    static func sequence(ofChunk seq: Int64, of id: UUID, devices: SyncDevices) async throws -> Int64 {
        let credentials = try #require(try await devices.engines[0].credentials())
        let page = try await devices.server.pull(after: 0, limit: 500, as: credentials)
        let found = try await devices.vaults[0].withSyncKeys { keys in
            let sealer = EnvelopeSealer(keys: keys)
            for pulled in page.envelopes {
                let record = try sealer.open(pulled.envelope)
                guard record.table == AttachmentChunkRecord.table, let state = record.state,
                      let chunk = AttachmentChunkRecord(payload: state) else { continue }
                if chunk.attachmentID == id, chunk.seq == seq { return pulled.sequence }
            }
            return Int64(-1)
        }
        #expect(found > 0)
        return found
    }
}
