import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Database pool: closing while reads are in flight")
struct VaultDatabaseCloseTests {
    @Test("close() waits for reads already admitted: each either completes or fails with locked, none meets a wiped key")
    func closeDrainsAdmittedReads() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.file("notes.db")
            let key = StorageFixtures.randomKey()
            let setup = try await StorageFixtures.openNotes(url, key: key)
            try await StorageFixtures.insertNote(setup, 1, "one")
            await setup.close()
            var completed = 0
            for _ in 0..<150 {
                let pool = try await StorageFixtures.openNotes(url, key: key, mode: .openExisting)
                // Enough concurrent reads that some find the writer busy and open readers lazily.
                let reads = (0..<6).map { _ in
                    Task {
                        try await pool.read(duration: .long) { db in
                            try db.fetchOne("SELECT count(*) FROM note") { row in row.int64(at: 0) } ?? 0
                        }
                    }
                }
                await Task.yield()
                await pool.close()
                for read in reads {
                    switch await read.result {
                    case .success(let count):
                        #expect(count == 1)
                        completed += 1
                    case .failure(let error):
                        #expect((error as? MedVaultError)?.code == .locked, "a read admitted before close() failed with \(error)")
                    }
                }
            }
            #expect(completed > 0)
        }
    }
}
