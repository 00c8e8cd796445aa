import BenchmarkSupport
import Foundation
@_spi(Benchmarks) import MedVault
import MedVaultCore
import MedVaultKeys

/// A1 — `vault.audit.verify()` over a long trail: 1,000,000 entries at scale ≥ 0.3
/// (the budget: under 10 s), 20,000 in quick runs. The entries are appended in
/// transactions of 50,000 through the writer's batch path
/// (`VaultAuditTrail._appendSyntheticEntries`, `@_spi(Benchmarks)`); verify reads them
/// all on a reader and recomputes every HMAC.
struct AuditVerifyWorkload: Workload {
    let id = "A1"
    let title = "audit trail verify of a long trail"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let count = context.scale >= 0.3 ? 1_000_000 : 20_000
        let folder = context.directory.appendingPathComponent("a1-vault")
        try? FileManager.default.removeItem(at: folder)
        let vault = try await Vault.create(at: folder, password: try Password("a1 contraseña"),
                                           options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))).vault
        context.log("A1: appending \(count) audit entries")
        try await vault.audit._appendSyntheticEntries(count)
        _ = try await vault.audit.verify()   // warm-up: the pages in the cache, the checkpoint at the head
        var result: AuditVerification?
        let seconds = try await Stopwatch.seconds { result = try await vault.audit.verify() }
        await vault.lock()
        guard result == .intact(entryCount: Int64(count) + 1) else {
            throw BenchmarkError("A1: verify returned \(String(describing: result)), expected \(count + 1) intact entries")
        }
        return [
            Measurement(label: "A1 audit verify of \(count + 1) entries", referenceLabel: "budget",
                        medVault: seconds * 1_000, reference: nil, unit: .milliseconds,
                        target: count >= 1_000_000 ? 10_000 : nil, targetIsAbsolute: count >= 1_000_000,
                        note: "one read transaction; every entry's HMAC-SHA256 recomputed along the chain "
                            + "(libsodium, keyed state precomputed); second of two runs"),
        ]
    }
}
