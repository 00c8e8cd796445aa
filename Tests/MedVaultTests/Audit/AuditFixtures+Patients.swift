import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport

extension AuditFixtures {
    /// `count` patients, one transaction each.
    static func createPatients(_ vault: Vault, count: Int) async throws -> [UUID] {
        var ids: [UUID] = []
        for number in 0..<count {
            ids.append(try await vault.patients.create(try ChangeFixtures.patient("Paciente", "Número \(number)")).id)
        }
        return ids
    }
}
