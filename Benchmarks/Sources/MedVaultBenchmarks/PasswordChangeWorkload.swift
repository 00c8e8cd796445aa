import BenchmarkSupport
import Foundation
import MedVault
import MedVaultKeys

/// K2 — changing the password is O(1): `vault.changePassword(from:to:)` on a 1 MiB
/// vault and on a ≥ 1 GiB one (≈ 100 MiB below scale 0.5 — 10 MiB below 0.2 — to keep
/// the smoke run short). Only the keyring changes (two Argon2id runs and a re-wrap),
/// so the ratio of the large vault's median to the small one's should be ≈ 1.
///
/// The vaults are created with `.recommended` and grown through `vault.database`
/// (``VaultBallast``: 1 MiB blobs in a table of the benchmark's own, 64 MiB per
/// transaction). The changes alternate between the vaults (ABBA), back and forth
/// between two passwords; 3 per vault. Both vaults are destroyed afterwards.
struct PasswordChangeWorkload: Workload {
    let id = "K2"
    let title = "password change, 1 MiB vs large vault"

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let largeMiB = context.scale >= 0.5 ? 1_024 : (context.scale >= 0.2 ? 100 : 10)
        let free = VaultBallast.freeSpace(at: context.directory)
        guard free > 3 * largeMiB * 1_048_576 else {
            throw BenchmarkError("K2: \(free / 1_048_576) MiB free, need \(3 * largeMiB) MiB")
        }
        let first = try Password("primera contraseña ñandú")
        let second = try Password("segunda contraseña pingüino")
        let small = try await Vault.create(at: context.directory.appendingPathComponent("k2-small"), password: first).vault
        let large = try await Vault.create(at: context.directory.appendingPathComponent("k2-large"), password: first).vault
        let start = ContinuousClock.now
        try await VaultBallast.grow(small.database, mebibytes: 1)
        try await VaultBallast.grow(large.database, mebibytes: largeMiB)
        let smallBytes = VaultBallast.fileSize(small.layout.database)
        let largeBytes = VaultBallast.fileSize(large.layout.database)
        context.log(String(format: "K2: vaults of %.1f MiB and %.0f MiB built in %.1f s",
                           Double(smallBytes) / 1_048_576, Double(largeBytes) / 1_048_576,
                           (ContinuousClock.now - start).seconds))

        var smallTimes: [Double] = []
        var largeTimes: [Double] = []
        var passwords = [ObjectIdentifier(small): false, ObjectIdentifier(large): false]
        for vault in [small, large, large, small, small, large] {
            let flipped = passwords[ObjectIdentifier(vault)] ?? false
            let seconds = try await Stopwatch.seconds {
                try await vault.changePassword(from: flipped ? second : first, to: flipped ? first : second)
            }
            passwords[ObjectIdentifier(vault)] = !flipped
            if vault === small { smallTimes.append(seconds * 1_000) } else { largeTimes.append(seconds * 1_000) }
        }
        let largeAfter = VaultBallast.fileSize(large.layout.database)
        try await small.destroy()
        try await large.destroy()
        guard largeAfter == largeBytes else { throw BenchmarkError("K2: the database file changed size") }

        return [
            Measurement(label: String(format: "K2 changePassword on %.0f MiB (median of 3)", Double(largeBytes) / 1_048_576),
                        referenceLabel: String(format: "same on %.1f MiB", Double(smallBytes) / 1_048_576),
                        medVault: Statistics.median(largeTimes), reference: Statistics.median(smallTimes),
                        unit: .milliseconds, target: 1.1,
                        note: "ratio = large ÷ small: O(1) means ≈ 1; each change runs Argon2id twice (check + new slot)"),
        ]
    }
}
