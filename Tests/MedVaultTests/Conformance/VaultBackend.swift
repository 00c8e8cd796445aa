import Foundation
import MedVault
import MedVaultTestSupport
import Testing

/// Every repository of one vault, through the protocols an app codes against.
struct VaultRepositories: Sendable {
    var patients: any PatientRepository
    var sessions: any ClinicalSessionRepository
    var diagnoses: any DiagnosisRepository
    var attachments: any AttachmentRepository
    var medications: any MedicationStore
    /// The vault's units of work (`write { tx in … }`) over the same records.
    var writer: any VaultWriter
    /// Releases the backend's resources (locks the vault, removes its folder).
    var close: @Sendable () async -> Void = {}
}

/// A whole vault the cross-entity conformance tests run against: `InMemoryVault` and
/// a SQLCipher `Vault` on disk. Rules that span repositories (a medication needs a
/// patient, a session a patient…) are checked here, on both, with identical results.
struct VaultBackend: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable (RecordClock) async throws -> VaultRepositories

    var testDescription: String { name }

    static let inMemory = VaultBackend(name: "in-memory") { clock in
        let vault = InMemoryVault(clock: clock)
        return VaultRepositories(patients: vault.patients, sessions: vault.sessions, diagnoses: vault.diagnoses,
                                 attachments: vault.attachments, medications: vault.medications, writer: vault)
    }

    static let sqlCipher = VaultBackend(name: "sqlcipher") { clock in
        let directory = try TemporaryDirectory()
        var options = VaultFixtures.options
        options.clock = clock
        let vault: Vault
        do {
            vault = try await Vault.create(at: directory.file("vault"), password: VaultFixtures.password(),
                                           options: options).vault
        } catch {
            directory.remove()
            throw error
        }
        return VaultRepositories(patients: vault.patients, sessions: vault.sessions, diagnoses: vault.diagnoses,
                                 attachments: vault.attachments, medications: vault.medications, writer: vault,
                                 close: { await vault.lock(); directory.remove() })
    }

    /// Every backend the suite runs against.
    static let all: [VaultBackend] = [.inMemory, .sqlCipher]
}
