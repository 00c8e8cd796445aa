import CArgon2Bench
import BenchmarkSupport
import Foundation
import MedVault
import MedVaultKeys

/// K1 — unlocking a vault vs bare libargon2.
///
/// Unlocking is dominated by Argon2id (m = 64 MiB, t = 3, p = 4); the reference is
/// one `argon2id_hash_raw` call with those parameters, so the ratio shows what
/// `Vault.open(at:password:)` adds: reading the keyring, the AEAD unwraps, opening the
/// database pool (writer connection, schema check) and the start-up sweep of
/// incomplete attachments. The vault is created once with `.recommended`; each
/// sample opens it and locks it (the lock is not timed). The sides alternate.
struct UnlockWorkload: Workload {
    let id = "K1"
    let title = "unlock vs bare Argon2id"

    static let memoryKiB: UInt32 = 64 * 1024
    static let iterations: UInt32 = 3
    static let parallelism: UInt32 = 4
    static let samples = 7

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        var rng = SplitMix64(seed: context.seed).fork(0x4B31)
        let password = Array("correcto caballo batería grapa ñ".utf8)
        let salt = rng.bytes(16)
        let folder = context.directory.appendingPathComponent("k1-vault")
        let passwordText = "correcto caballo batería grapa ñ"
        let created = try await Vault.create(at: folder, password: try Password(passwordText))
        await created.vault.lock()
        context.log("K1: 1 warm-up + \(Self.samples) Vault.open and argon2id_hash_raw(m=64 MiB, t=3, p=4), alternating")
        var medVault: [Double] = []
        var reference: [Double] = []
        for sample in 0...Self.samples {
            for side in (sample.isMultiple(of: 2) ? [0, 1] : [1, 0]) {
                if side == 0 {
                    let password = try Password(passwordText)
                    var vault: Vault?
                    let seconds = try await Stopwatch.seconds {
                        vault = try await Vault.open(at: folder, password: password)
                    }
                    await vault?.lock()
                    if sample > 0 { medVault.append(seconds * 1_000) }
                } else {
                    let seconds = try Stopwatch.seconds { _ = try Self.argon2id(password: password, salt: salt) }
                    if sample > 0 { reference.append(seconds * 1_000) }
                }
            }
        }
        return [
            Measurement(label: "K1 Vault.open, .recommended (median of \(Self.samples))",
                        referenceLabel: "bare argon2id_hash_raw", medVault: Statistics.median(medVault),
                        reference: Statistics.median(reference), unit: .milliseconds, target: 1.10,
                        note: "MedVault side: keyring read, Argon2id, AEAD unwraps, pool open, incomplete-attachment sweep"),
        ]
    }

    /// One Argon2id derivation of 32 bytes with the K1 parameters.
    static func argon2id(password: [UInt8], salt: [UInt8]) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        let result = password.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBytes { saltBytes in
                output.withUnsafeMutableBytes { outputBytes in
                    argon2id_hash_raw(iterations, memoryKiB, parallelism,
                                      passwordBytes.baseAddress, passwordBytes.count,
                                      saltBytes.baseAddress, saltBytes.count,
                                      outputBytes.baseAddress, outputBytes.count)
                }
            }
        }
        guard result == Int32(ARGON2_OK.rawValue) else {
            throw BenchmarkError("argon2id_hash_raw failed: \(String(cString: argon2_error_message(result)))")
        }
        return output
    }
}
