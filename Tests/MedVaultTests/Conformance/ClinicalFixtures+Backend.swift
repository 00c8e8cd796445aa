import Foundation
import MedVaultCore
import MedVaultTestSupport

extension ClinicalFixtures {
    /// Fresh repositories of `backend` with a stepping clock.
    static func make(
        _ backend: ClinicalBackend, clock: SteppingClock = SteppingClock(),
        maximumAttachmentByteCount: Int64 = 8 * 1024 * 1024
    ) async throws -> ClinicalRepositories {
        try await backend.make(ClinicalBackendOptions(
            clock: clock.recordClock, maximumAttachmentByteCount: maximumAttachmentByteCount))
    }
}
