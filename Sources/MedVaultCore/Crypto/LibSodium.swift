import CSodium

/// libsodium's one-time initialisation, shared by every MedVault module.
///
/// `sodium_init` must run before any other libsodium call (it picks the fastest
/// implementation of each primitive and seeds the random generator). It is safe to call
/// more than once and from several threads; a static `let` runs it exactly once.
package enum LibSodium {
    /// Whether `sodium_init` succeeded (negative only when the system cannot supply
    /// randomness).
    package static let ready: Bool = sodium_init() >= 0
}
