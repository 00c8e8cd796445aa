import BenchmarkSupport
import Foundation
@_spi(Sync) import MedVault
import MedVaultKeys

/// C1 — sealing sync envelopes: `SyncKeys.seal` (libsodium's ChaCha20-Poly1305 on the
/// vault's envelope key, as the sync engine seals every record) against the hand-written
/// ChaCha20-Poly1305 it replaced (`HandWrittenChaChaPoly`, commit 7194ae0), on the same
/// messages, nonces and associated data. Issue #32: no slower than before in the same run.
///
/// Two sizes: 600 bytes (a patient or a session note's envelope) and 64 KiB (an attachment
/// chunk). Each sample seals the whole batch; the sides alternate; the median of 7 counts.
struct SealingWorkload: Workload {
    let id = "C1"
    let title = "sync sealing: libsodium vs the hand-written AEAD it replaced"

    static let samples = 7

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let folder = context.directory.appendingPathComponent("c1-vault")
        try? FileManager.default.removeItem(at: folder)
        let vault = try await Vault.create(at: folder, password: try Password("c1 contraseña"),
                                           options: Vault.Options(kdf: .fastForTestsOnly,
                                                                  passwordPolicy: PasswordPolicy(minimumLength: 1,
                                                                                                 minimumEstimatedBits: 0))).vault
        var rng = SplitMix64(seed: context.seed).fork(0x4331)
        let key = rng.bytes(32)
        let associatedData = rng.bytes(48)
        var measurements: [Measurement] = []
        for (size, total) in [(600, 12 << 20), (64 << 10, 64 << 20)] {
            let count = max(1, Int(Double(total) * max(context.scale, 0.1)) / size)
            let message = rng.bytes(size)
            context.log("C1: \(Self.samples) samples of \(count) seals of \(size) bytes, alternating")
            var library: [Double] = []
            var handWritten: [Double] = []
            for sample in 0...Self.samples {
                for side in (sample.isMultiple(of: 2) ? [0, 1] : [1, 0]) {
                    let seconds: Double
                    if side == 0 {
                        seconds = try await vault.withSyncKeysSPI { keys in
                            try Stopwatch.seconds {
                                for _ in 0..<count { _ = try keys.seal(message, associatedData: associatedData) }
                            }
                        }
                    } else {
                        seconds = Stopwatch.seconds {
                            var ciphertext = [UInt8](repeating: 0, count: size)
                            for _ in 0..<count {
                                let nonce = HandWrittenChaChaPoly.randomNonce()
                                _ = key.withUnsafeBytes { keyBytes in
                                    message.withUnsafeBytes { input in
                                        ciphertext.withUnsafeMutableBytes { output in
                                            HandWrittenChaChaPoly.seal(input, key: keyBytes, nonce: nonce,
                                                                       associatedData: associatedData, into: output)
                                        }
                                    }
                                }
                            }
                        }
                    }
                    guard sample > 0 else { continue } // warm-up
                    let megabytes = Double(count * size) / 1_000_000 / seconds
                    if side == 0 { library.append(megabytes) } else { handWritten.append(megabytes) }
                }
            }
            measurements.append(Measurement(
                label: "C1 sealing \(size >= 1024 ? "\(size >> 10) KiB" : "\(size) B") envelopes (median)",
                referenceLabel: "hand-written AEAD (before)",
                medVault: Statistics.median(library), reference: Statistics.median(handWritten),
                unit: .megabytesPerSecond, target: 1.0,
                note: "SyncKeys.seal: libsodium; the reference is the Swift ChaCha20-Poly1305 of 7194ae0"))
        }
        await vault.lock()
        return measurements
    }
}
