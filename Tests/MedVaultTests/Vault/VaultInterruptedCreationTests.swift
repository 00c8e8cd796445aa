import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// A creation killed before its keyring was written leaves a database nobody can open;
/// the creation marker beside it lets the next creation start again, and only then
/// (issue #34).
@Suite("Vault: an interrupted creation")
struct VaultInterruptedCreationTests {
    @Test("A database beside the creation marker and no keyring: open says the creation was interrupted, create starts again and the new vault opens")
    func interruptedCreationIsRedone() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.file("clinic")
            let layout = VaultLayout(folder: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // What a kill between the database and the keyring leaves.
            try Data(repeating: 0xA5, count: 8_192).write(to: layout.database)
            try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: layout.database.path + "-wal"))
            try Data().write(to: layout.creationMarker)

            let opening = await #expect(throws: MedVaultError.self) {
                try await Vault.open(at: folder, password: try VaultFixtures.password(), options: VaultFixtures.options)
            }
            #expect(opening?.code == .fileNotFound)
            #expect(opening?.reason.contains("creation was interrupted") == true, "\(String(describing: opening))")

            let created = try await Vault.create(at: folder, password: try VaultFixtures.password(), options: VaultFixtures.options)
            _ = try await created.vault.patients.create(ClinicalFixtures.patient())
            await created.vault.lock()
            #expect(!FileManager.default.fileExists(atPath: layout.creationMarker.path))
            let reopened = try await Vault.open(at: folder, password: try VaultFixtures.password(), options: VaultFixtures.options)
            #expect(try await reopened.patients.count() == 1)
            await reopened.lock()
        }
    }

    @Test("A database without a keyring and without the marker is never removed: create refuses with duplicate")
    func databaseWithoutMarkerIsKept() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.file("clinic")
            let layout = VaultLayout(folder: folder)
            let created = try await Vault.create(at: folder, password: try VaultFixtures.password(), options: VaultFixtures.options)
            await created.vault.lock()
            // The keyring moved away (say, by hand): the database is still someone's records.
            try FileManager.default.moveItem(at: layout.keyring, to: dir.file("keyring.aside"))
            let before = try Data(contentsOf: layout.database)
            let again = await #expect(throws: MedVaultError.self) {
                try await Vault.create(at: folder, password: try VaultFixtures.password(), options: VaultFixtures.options)
            }
            #expect(again?.code == .duplicate)
            #expect(try Data(contentsOf: layout.database) == before)
            let opening = await #expect(throws: MedVaultError.self) {
                try await Vault.open(at: folder, password: try VaultFixtures.password(), options: VaultFixtures.options)
            }
            #expect(opening?.reason == "there is no vault keyring in this folder")
        }
    }

    @Test("A marker left after the keyring was written (killed just before removing it) is removed by the next open")
    func markerAfterKeyringIsRemovedByOpen() async throws {
        try await withTemporaryDirectory { dir in
            let folder = dir.file("clinic")
            let layout = VaultLayout(folder: folder)
            let created = try await Vault.create(at: folder, password: try VaultFixtures.password(), options: VaultFixtures.options)
            await created.vault.lock()
            try Data().write(to: layout.creationMarker)
            let again = await #expect(throws: MedVaultError.self) {
                try await Vault.create(at: folder, password: try VaultFixtures.password(), options: VaultFixtures.options)
            }
            #expect(again?.code == .duplicate)
            let opened = try await Vault.open(at: folder, password: try VaultFixtures.password(), options: VaultFixtures.options)
            await opened.lock()
            #expect(!FileManager.default.fileExists(atPath: layout.creationMarker.path))
        }
    }
}
