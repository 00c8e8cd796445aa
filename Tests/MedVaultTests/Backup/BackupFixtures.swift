import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Vaults with records for the backup, restore and import tests.
enum BackupFixtures {
    /// A marker put in names and notes: it must never appear in a file on disk.
    static let marker = "ZZBACKUPMARKER-Núñez"
    static let password = "probe"

    /// Creates a vault in `folder` (password "probe", fast KDF) with `patients` patients,
    /// each with one session whose notes carry the marker; the last patient is deactivated.
    static func makeVault(at folder: URL, patients: Int = 40) async throws -> Vault.Creation {
        let created = try await Vault.create(at: folder, password: try Password(password), options: VaultFixtures.options)
        try await addRecords(created.vault, patients: patients)
        return created
    }

    static func addRecords(_ vault: Vault, patients: Int, start: Int = 0) async throws {
        let made = try await vault.patients.create((start..<(start + patients)).map { n in
            Patient(firstName: "\(marker) \(n)", lastName: "Apellido \(n)",
                    dateOfBirth: try! CalendarDate(iso8601: "1980-01-01"), nationalId: "\(marker)-ID-\(n)")
        })
        _ = try await vault.sessions.create(made.map { patient in
            ClinicalSession(patientID: patient.id, date: Date(millisecondsSince1970: 1_700_000_000_000),
                            notes: "\(marker) notes for a session")
        })
        if let last = made.last { _ = try await vault.patients.deactivate(last.id) }
    }

    /// Every patient, active and inactive, sorted by id.
    static func allPatients(_ vault: Vault) async throws -> [Patient] {
        var result: [Patient] = []
        var cursor: PatientCursor?
        repeat {
            let page = try await vault.patients.list(filter: .all, after: cursor, limit: 500)
            result += page.patients
            cursor = page.nextCursor
        } while cursor != nil
        return result.sorted { $0.id.uuidString < $1.id.uuidString }
    }

    /// Opens the vault in `folder` with the probe password.
    static func open(_ folder: URL) async throws -> Vault {
        try await Vault.open(at: folder, password: try Password(password), options: VaultFixtures.options)
    }

    /// Fails when `marker` appears in any file under `folder` (recursively).
    static func expectNoPlaintext(in folder: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        var scanned = 0
        while let url = enumerator?.nextObject() as? URL {
            guard let bytes = try? Data(contentsOf: url) else { continue }
            scanned += 1
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "marker found in \(url.lastPathComponent)",
                    sourceLocation: sourceLocation)
            #expect(bytes.range(of: Data("ZZBACKUPMARKER".utf8)) == nil, "marker found in \(url.lastPathComponent)",
                    sourceLocation: sourceLocation)
        }
        #expect(scanned > 0, "no file was scanned", sourceLocation: sourceLocation)
    }

    /// The names in `folder` (hidden ones included).
    static func names(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }
}
