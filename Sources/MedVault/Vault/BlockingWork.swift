import Foundation

/// Runs CPU-heavy synchronous work (Argon2id) on a thread of its own, so that a
/// quarter-second of key derivation never occupies one of Swift's cooperative threads.
enum BlockingWork {
    static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try work() })
            }
            thread.name = "medvault.kdf"
            thread.start()
        }
    }
}
