/// The client credentials of a WHO ICD-API account (https://icd.who.int/icdapi, "View
/// API access key(s)"), for the OAuth2 client-credentials flow.
///
/// Nothing prints them: ``description``, ``debugDescription`` and the mirror say
/// "redacted", so a credential that ends up in a log or an error shows nothing. Load
/// them from the app's secret store, or from the environment in a command-line tool;
/// never from source code.
///
/// For example:
///
/// ```swift
/// let credentials = ICD11Credentials(clientID: keychain.icdClientID, clientSecret: keychain.icdSecret)
/// ```
public struct ICD11Credentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The client identifier.
    let clientID: String
    /// The client secret.
    let clientSecret: String

    /// Creates credentials.
    public init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    /// `ICD11Credentials(redacted)`: never the identifier or the secret.
    public var description: String { "ICD11Credentials(redacted)" }
    /// As ``description``.
    public var debugDescription: String { description }
    /// A mirror without children, so `dump` and `print` of a containing value show nothing.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
