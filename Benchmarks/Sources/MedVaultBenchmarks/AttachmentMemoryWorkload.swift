import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys

/// M — peak memory of streaming a 50 MiB attachment in and out:
/// `attachments.create(_:content:)` fed by an async sequence of 64 KiB chunks, then
/// `attachments.content(of:)` consumed chunk by chunk. The figure is VmHWM above the
/// resident size at a `/proc/self/clear_refs` reset (see ``PeakMemory``); the target
/// is absolute (≤ 32 MiB), there is no reference. The size is 50 MiB at every scale.
struct AttachmentMemoryWorkload: Workload {
    let id = "M"
    let title = "peak memory streaming a 50 MiB attachment"

    static let byteCount = 50 * 1_048_576
    static let chunk = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let key = context.databaseKey(salt: 0x4D)
        defer { key.secure.wipe() }
        let pool = try await VaultDatabase.open(at: context.databaseURL("m-attachments.db"), key: key.secure,
                                               mode: .createIfMissing, migrator: MedVaultSchema.migrator)
        let records = SQLCipherClinicalRecords(pool: pool)
        let patient = try await records.patients.create(
            Patient(firstName: "Lucía", lastName: "Peña Ibáñez", dateOfBirth: try CalendarDate(iso8601: "1990-05-04")))
        let session = try await records.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
        // Warm-up: a small attachment through both paths.
        let warm = try await records.attachments.create(
            NewAttachment(sessionID: session.id, fileName: "warm.bin", mimeType: "application/octet-stream"),
            content: Self.chunks(count: 32))
        for try await _ in try await records.attachments.content(of: warm.id) {}

        let chunkCount = Self.byteCount / Self.chunk.count
        let (stored, writePeak) = try await PeakMemory.peakAboveBaseline {
            try await records.attachments.create(
                NewAttachment(sessionID: session.id, fileName: "resonancia.dcm", mimeType: "application/dicom"),
                content: Self.chunks(count: chunkCount))
        }
        let (readBytes, readPeak) = try await PeakMemory.peakAboveBaseline {
            var total = 0
            for try await piece in try await records.attachments.content(of: stored.id) { total += piece.count }
            return total
        }
        await pool.close()
        guard stored.byteCount == Int64(Self.byteCount), readBytes == Self.byteCount else {
            throw BenchmarkError("M: stored \(stored.byteCount) bytes, read \(readBytes)")
        }
        let note = writePeak == nil ? "VmHWM reset unavailable on this system" : nil
        return [
            Measurement(label: "M attachments.create, 50 MiB streamed in, peak RSS", referenceLabel: "none",
                        medVault: writePeak, reference: nil, unit: .mebibytes, target: 32, targetIsAbsolute: true,
                        note: note),
            Measurement(label: "M attachments.content, 50 MiB streamed out, peak RSS", referenceLabel: "none",
                        medVault: readPeak, reference: nil, unit: .mebibytes, target: 32, targetIsAbsolute: true,
                        note: nil),
        ]
    }

    /// `count` chunks of 64 KiB, produced on demand.
    static func chunks(count: Int) -> Chunks { Chunks(count: count) }

    /// An async sequence of the same 64 KiB chunk, `count` times.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = Data
        let count: Int

        struct AsyncIterator: AsyncIteratorProtocol {
            var left: Int
            mutating func next() async -> Data? {
                guard left > 0 else { return nil }
                left -= 1
                return AttachmentMemoryWorkload.chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(left: count) }
    }
}
