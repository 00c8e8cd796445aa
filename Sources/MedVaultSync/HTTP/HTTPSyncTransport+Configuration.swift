import Foundation
import MedVaultCore
import MedVaultSyncWire

extension HTTPSyncTransport {
    /// Where the sync server is and how to talk to it.
    ///
    /// For example:
    ///
    /// ```swift
    /// var configuration = HTTPSyncTransport.Configuration(baseURL: URL(string: "https://sync.example.org")!)
    /// configuration.timeout = .seconds(20)
    /// let transport = try HTTPSyncTransport(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The server's base: `https://host[:port][/prefix]`; `/v1/…` is appended. Plain
        /// `http` only to this machine (`127.0.0.1`, `::1`, `localhost`): device tokens
        /// travel in headers.
        public var baseURL: URL
        /// How long one attempt may take, connecting and reading the whole answer
        /// included, before it fails with `timeout`.
        public var timeout: Duration
        /// When to retry a failed call.
        public var retryPolicy: HTTPSyncRetryPolicy
        /// The largest answer read, in bytes; a larger one fails with `limitExceeded`
        /// and is not read further. The default (16 MiB) holds a full pull page (4 MiB
        /// of ciphertext, base64) with room to spare.
        public var maximumResponseSize: Int
        /// How the transport waits between attempts (`Task.sleep` by default); tests
        /// inject one that records the waits.
        public var sleep: @Sendable (Duration) async throws -> Void
        /// The jitter's draw, a number in `0..<1` (`Double.random` by default).
        public var random: @Sendable () -> Double
        /// The server's deployment secret, sent (as `MedVault-Registration-Secret`) only
        /// when registering a vault, for a server that registers only with it
        /// (`MEDVAULT_SYNC_REGISTRATION_SECRET`). `nil` by default.
        public var registrationSecret: String?
        /// A single-use invitation (`SyncEngine.makeInvitation()` on a device of another
        /// vault), sent (as `MedVault-Invitation`) only when registering a vault, for a
        /// server that registers only invited vaults
        /// (`MEDVAULT_SYNC_REGISTRATION_INVITATIONS=1`). `nil` by default.
        public var invitation: String?
        /// The server origin this device binds its register and join proofs to, as
        /// `SyncDeviceProof.origin(of:)` writes it; `nil` (the default) for ``baseURL``'s.
        /// Set it only when this device reaches the server under another address than its
        /// public one (a tunnel, a local port forward): it must equal the server's
        /// `MEDVAULT_SYNC_ORIGIN`.
        public var proofOrigin: String?

        /// Creates a configuration.
        public init(baseURL: URL, timeout: Duration = .seconds(30),
                    retryPolicy: HTTPSyncRetryPolicy = HTTPSyncRetryPolicy(),
                    maximumResponseSize: Int = 16 << 20) {
            self.baseURL = baseURL
            self.timeout = timeout
            self.retryPolicy = retryPolicy
            self.maximumResponseSize = maximumResponseSize
            self.sleep = { try await Task.sleep(for: $0) }
            self.random = { Double.random(in: 0..<1) }
        }

        /// Checks the configuration.
        ///
        /// - Throws: `invalidArgument` for a URL that is not http(s) with a host, has a
        ///   user, password, query or fragment, or is plain `http` to another machine;
        ///   a timeout that is not positive; a response limit below 1 KiB; a proof origin
        ///   that is not an http or https origin.
        func validate() throws {
            guard let scheme = baseURL.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  let host = baseURL.host, !host.isEmpty
            else {
                throw MedVaultError(.invalidArgument, field: "baseURL", reason: "the URL must be http or https with a host")
            }
            guard baseURL.user == nil, baseURL.password == nil, baseURL.query == nil, baseURL.fragment == nil else {
                throw MedVaultError(.invalidArgument, field: "baseURL",
                                    reason: "the URL must not hold a user, password, query or fragment")
            }
            if scheme == "http", !Self.isLoopback(baseURL) {
                throw MedVaultError(.invalidArgument, field: "baseURL",
                                    reason: "device tokens are only sent over https, or over http to this machine")
            }
            guard timeout > .zero else {
                throw MedVaultError(.invalidArgument, field: "timeout", reason: "the timeout must be positive")
            }
            if let proofOrigin {
                guard let url = URL(string: proofOrigin), url.path.isEmpty || url.path == "/",
                      SyncDeviceProof.origin(of: url) != nil else {
                    throw MedVaultError(.invalidArgument, field: "proofOrigin",
                                        reason: "the proof origin must be an http or https origin, such as https://sync.example.org")
                }
            }
            guard maximumResponseSize >= 1024 else {
                throw MedVaultError(.invalidArgument, field: "maximumResponseSize",
                                    reason: "the response limit must be at least 1 KiB")
            }
        }

        static func isLoopback(_ url: URL) -> Bool {
            guard let host = url.host?.lowercased() else { return false }
            if ["localhost", "::1", "[::1]"].contains(host) { return true }
            // 127.0.0.0/8: four decimal parts, the first 127.
            let parts = host.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
        }
    }
}
