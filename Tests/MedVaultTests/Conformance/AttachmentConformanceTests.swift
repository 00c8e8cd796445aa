import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Attachments: streamed content, size and digest, limits, rules.
@Suite("Attachment repository conformance")
struct AttachmentConformanceTests {
    typealias F = ClinicalFixtures

    /// Deterministic pseudo-random bytes.
    static func bytes(count: Int, seed: UInt64 = 42) -> Data {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
        }
        return Data(bytes)
    }

    static func session(_ repos: ClinicalRepositories, status: SessionStatus = .scheduled) async throws -> ClinicalSession {
        let patient = try await repos.patients.create(F.patient())
        return try await repos.sessions.create(ClinicalSession(patientID: patient.id, date: F.now, status: status))
    }

    @Test(arguments: ClinicalBackend.all)
    func smallRoundTripWithDigest(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let session = try await Self.session(repos)
        let new = NewAttachment(sessionID: session.id, fileName: "informe médico.pdf", mimeType: "application/pdf")
        let stored = try await repos.attachments.create(new, data: Data("abc".utf8))
        #expect(stored.byteCount == 3)
        #expect(stored.sha256.hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(stored.fileName == "informe médico.pdf")
        #expect(stored.version == 1)
        #expect(try await repos.attachments.get(new.id) == stored)
        #expect(try await repos.attachments.data(of: new.id) == Data("abc".utf8))
        let empty = try await repos.attachments.create(
            NewAttachment(sessionID: session.id, fileName: "vacío.txt", mimeType: "text/plain"), data: Data())
        #expect(empty.byteCount == 0)
        #expect(empty.sha256.hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(try await repos.attachments.data(of: empty.id).isEmpty)
        #expect(try await repos.attachments.list(sessionID: session.id).map(\.id) == [stored.id, empty.id])
        await expectMedVaultError(.duplicate) { try await repos.attachments.create(new, data: Data("x".utf8)) }
        await expectMedVaultError(.notFound) { try await repos.attachments.get(UUID()) }
        await expectMedVaultError(.notFound) { try await repos.attachments.content(of: UUID()) }
        await expectMedVaultError(.notFound, field: "sessionID") { try await repos.attachments.list(sessionID: UUID()) }
    }

    /// A few MiB in odd-sized chunks: read back identical, digest matches an independent one.
    @Test(arguments: ClinicalBackend.all)
    func chunkedStreamOfSeveralMebibytes(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let session = try await Self.session(repos)
        let content = Self.bytes(count: 3 * 1024 * 1024 + 12_345)
        let input = AsyncStream<Data> { continuation in
            var offset = 0
            var size = 1
            while offset < content.count {
                let end = min(offset + size, content.count)
                continuation.yield(content.subdata(in: offset..<end))
                offset = end
                size = size * 7 % 300_007 + 1   // varied chunk sizes, some tiny, some large
            }
            continuation.finish()
        }
        let stored = try await repos.attachments.create(
            NewAttachment(sessionID: session.id, fileName: "scan.bin", mimeType: "application/octet-stream"),
            content: input)
        #expect(stored.byteCount == Int64(content.count))
        #expect(stored.sha256 == SHA256Digest.of(content))
        var read = Data()
        var chunks = 0
        for try await chunk in try await repos.attachments.content(of: stored.id) {
            read.append(chunk)
            chunks += 1
        }
        #expect(read == content)
        #expect(chunks > 1)
    }

    @Test(arguments: ClinicalBackend.all)
    func sizeLimitStoresNothing(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend, maximumAttachmentByteCount: 1_000)
        #expect(repos.attachments.maximumByteCount == 1_000)
        let session = try await Self.session(repos)
        let exact = try await repos.attachments.create(
            NewAttachment(sessionID: session.id, fileName: "ok.bin", mimeType: "application/octet-stream"),
            data: Self.bytes(count: 1_000))
        #expect(exact.byteCount == 1_000)
        let tooBig = NewAttachment(sessionID: session.id, fileName: "big.bin", mimeType: "application/octet-stream")
        await expectMedVaultError(.validation, field: "content") {
            try await repos.attachments.create(tooBig, content: DataChunks(data: Self.bytes(count: 1_001), chunkSize: 100))
        }
        await expectMedVaultError(.notFound) { try await repos.attachments.get(tooBig.id) }
        #expect(try await repos.attachments.list(sessionID: session.id) == [exact])
    }

    struct ProducerFailure: Error {}

    @Test(arguments: ClinicalBackend.all)
    func failingInputStoresNothing(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let session = try await Self.session(repos)
        let new = NewAttachment(sessionID: session.id, fileName: "a.bin", mimeType: "application/octet-stream")
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data(count: 10))
            continuation.finish(throwing: ProducerFailure())
        }
        await #expect(throws: ProducerFailure.self) { try await repos.attachments.create(new, content: failing) }
        await expectMedVaultError(.notFound) { try await repos.attachments.get(new.id) }
    }

    @Test(arguments: ClinicalBackend.all)
    func metadataValidation(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let session = try await Self.session(repos)
        let cases: [(String, String, String)] = [
            ("fileName", " ", "text/plain"),
            ("fileName", "../etc/passwd", "text/plain"),
            ("fileName", "a\u{0}b", "text/plain"),
            ("fileName", String(repeating: "a", count: 256), "text/plain"),
            ("mimeType", "a.pdf", "pdf"),
            ("mimeType", "a.pdf", "application/"),
            ("mimeType", "a.pdf", "application/pdf; charset=x"),
            ("mimeType", "a.pdf", "text/plain/extra"),
        ]
        for (field, name, mime) in cases {
            await expectMedVaultError(.validation, field: field) {
                try await repos.attachments.create(NewAttachment(sessionID: session.id, fileName: name, mimeType: mime),
                                                   data: Data("x".utf8))
            }
        }
        await expectMedVaultError(.notFound, field: "sessionID") {
            try await repos.attachments.create(NewAttachment(sessionID: UUID(), fileName: "a", mimeType: "text/plain"),
                                               data: Data("x".utf8))
        }
        #expect(try await repos.attachments.list(sessionID: session.id).isEmpty)
    }

    @Test(arguments: ClinicalBackend.all)
    func deleteOnlyOutsideCompletedSessions(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let open = try await Self.session(repos)
        let done = try await Self.session(repos, status: .completed)
        let a = try await repos.attachments.create(
            NewAttachment(sessionID: open.id, fileName: "a.png", mimeType: "image/png"), data: Data([1, 2, 3]))
        let b = try await repos.attachments.create(
            NewAttachment(sessionID: done.id, fileName: "b.png", mimeType: "image/png"), data: Data([4, 5, 6]))
        try await repos.attachments.delete(a.id)
        await expectMedVaultError(.notFound) { try await repos.attachments.get(a.id) }
        await expectMedVaultError(.notFound) { try await repos.attachments.delete(a.id) }
        await expectMedVaultError(.immutable, field: "status") { try await repos.attachments.delete(b.id) }
        #expect(try await repos.attachments.data(of: b.id) == Data([4, 5, 6]))
    }
}
