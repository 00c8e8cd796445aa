import Foundation
import MedVaultCore

extension WHOICDClient {
    /// Where the client connects and how.
    ///
    /// For example:
    ///
    /// ```swift
    /// // The WHO's API, with the account's credentials:
    /// let who = WHOICDClient.Configuration.who(credentials: credentials, release: "2024-01")
    /// // A local ICD-API container (docker image whoicd/icd-api), which needs no token:
    /// let local = WHOICDClient.Configuration.localContainer(baseURL: URL(string: "http://localhost:8382")!,
    ///                                                       release: "2024-01")
    /// ```
    public struct Configuration: Sendable {
        /// The WHO's API: `https://id.who.int`.
        public static let whoBaseURL = URL(string: "https://id.who.int")!  // A literal, well-formed URL: cannot fail.
        /// The WHO's token endpoint.
        public static let whoTokenURL = URL(string: "https://icdaccessmanagement.who.int/connect/token")!  // A literal, well-formed URL: cannot fail.

        /// The API's base: `https://id.who.int`, or a local container's `http://host:port`.
        /// Paths such as `/icd/release/11/2024-01/mms/search` are appended to it, and
        /// every `http(s)://id.who.int/…` URI the server returns is fetched from it.
        public var baseURL: URL
        /// The OAuth2 token endpoint.
        public var tokenURL: URL
        /// The client credentials; `nil` for a local container, which needs no token.
        public var credentials: ICD11Credentials?
        /// The MMS release, for example `2024-01` or `2025-01`.
        public var release: String
        /// How long a request may take before it fails with `timeout`.
        public var timeout: Duration
        /// How long before its expiry a token is replaced (at most half its lifetime).
        public var tokenRefreshMargin: Duration

        /// Creates a configuration; ``who(credentials:release:)`` and
        /// ``localContainer(baseURL:release:)`` are the usual ones.
        public init(baseURL: URL, tokenURL: URL = Configuration.whoTokenURL, credentials: ICD11Credentials?,
                    release: String, timeout: Duration = .seconds(15), tokenRefreshMargin: Duration = .seconds(60)) {
            self.baseURL = baseURL
            self.tokenURL = tokenURL
            self.credentials = credentials
            self.release = release
            self.timeout = timeout
            self.tokenRefreshMargin = tokenRefreshMargin
        }

        /// The WHO's API with an account's credentials.
        public static func who(credentials: ICD11Credentials, release: String) -> Configuration {
            Configuration(baseURL: whoBaseURL, credentials: credentials, release: release)
        }

        /// A locally deployed ICD-API container (`whoicd/icd-api`): no token.
        public static func localContainer(baseURL: URL, release: String) -> Configuration {
            Configuration(baseURL: baseURL, credentials: nil, release: release)
        }

        /// Checks the configuration.
        ///
        /// - Throws: `invalidArgument` for a release that is not `YYYY-MM`, a URL that is
        ///   not http(s), a timeout that is not positive, or credentials that would travel
        ///   unencrypted (plain `http` to another machine than this one).
        func validate() throws {
            guard ICD11Snapshot.isValidRelease(release) else {
                throw MedVaultError(.invalidArgument, field: "release", reason: "the release must be like 2024-01")
            }
            for (field, url) in [("baseURL", baseURL), ("tokenURL", tokenURL)] {
                guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
                    throw MedVaultError(.invalidArgument, field: field, reason: "the URL must be http or https with a host")
                }
                if credentials != nil, scheme == "http", !Self.isLoopback(url) {
                    throw MedVaultError(.invalidArgument, field: field,
                                        reason: "credentials and tokens are only sent over https, or to this machine")
                }
            }
            guard timeout > .zero else {
                throw MedVaultError(.invalidArgument, field: "timeout", reason: "the timeout must be positive")
            }
        }

        static func isLoopback(_ url: URL) -> Bool {
            ["127.0.0.1", "localhost", "::1", "[::1]"].contains(url.host?.lowercased() ?? "")
        }
    }
}
