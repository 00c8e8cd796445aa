import CArgon2
import Foundation

/// K1 — unlocking a vault vs bare libargon2.
///
/// Unlocking is dominated by Argon2id (m = 64 MiB, t = 3, p = 4); the reference is
/// one `argon2id_hash_raw` call with those parameters, so the ratio shows what the
/// key manager adds (AEAD unwrap, keyring read, opening the pool). The MedVault
/// side is pending until the key-management module lands: it is reported as
/// "pending", never estimated.
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
        context.log("K1: 1 warm-up + \(Self.samples) argon2id_hash_raw(m=64 MiB, t=3, p=4)")
        var reference: [Double] = []
        for sample in 0...Self.samples {
            let seconds = try Stopwatch.seconds { _ = try Self.argon2id(password: password, salt: salt) }
            if sample > 0 { reference.append(seconds * 1_000) }
        }
        return [
            Measurement(label: "K1 unlock (median of \(Self.samples))",
                        referenceLabel: "bare argon2id_hash_raw", medVault: nil,
                        reference: Statistics.median(reference), unit: .milliseconds, target: 1.10,
                        note: "MedVault side pending: the key-management module is not merged yet"),
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
