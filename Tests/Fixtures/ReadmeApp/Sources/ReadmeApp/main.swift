import Foundation
import MedVault

/// A failed check of what an example read back.
struct ReadmeAppError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// Runs every README example on throwaway vaults (real Argon2id settings), then removes them.
let root = FileManager.default.temporaryDirectory.appendingPathComponent("readme-app-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }

try await clinicalRecordsExample(folder: root.appendingPathComponent("clinic"))

let medications = try await Vault.create(at: root.appendingPathComponent("meds"), password: Password("correct horse battery staple"))
let patient = try await medications.vault.patients.create(
    Patient(firstName: "María", lastName: "Ibáñez", dateOfBirth: try CalendarDate(iso8601: "1950-11-02")))
try await medicationsExample(vault: medications.vault, patient: patient)
try await unitOfWorkExample(vault: medications.vault)
await medications.vault.lock()

let changes = try await Vault.create(at: root.appendingPathComponent("changes"), password: Password("correct horse battery staple"))
try await changeObservationExample(vault: changes.vault)
await changes.vault.lock()

try await inMemoryVaultExample()
print("README examples: 5 ran")
