import ArgumentParser
import Foundation
import MedVault
import MedVaultICD11

/// Where `medvault icd search` and `medvault diagnoses add` find the ICD-11 catalogue.
///
/// The credentials come from the environment only (`MEDVAULT_ICD_CLIENT_ID`,
/// `MEDVAULT_ICD_CLIENT_SECRET`): an argument would show in `ps` and the shell history.
/// Without them the server must be a local ICD-API container, which needs no token.
struct ICDOptions: ParsableArguments {
    static let environmentHelp = """
        Credentials: MEDVAULT_ICD_CLIENT_ID and MEDVAULT_ICD_CLIENT_SECRET (a WHO ICD-API \
        account, https://icd.who.int/icdapi), read from the environment only. Without them, \
        --base-url must name a local ICD-API container (docker image whoicd/icd-api), which \
        needs no token. MEDVAULT_ICD_BASE_URL, MEDVAULT_ICD_TOKEN_URL and \
        MEDVAULT_ICD_RELEASE set the defaults of the options.
        """

    @Option(help: ArgumentHelp("The ICD-API base URL (default https://id.who.int, or MEDVAULT_ICD_BASE_URL).", valueName: "url"))
    var baseURL: String?

    @Option(help: ArgumentHelp("The OAuth2 token endpoint (default the WHO's, or MEDVAULT_ICD_TOKEN_URL).", valueName: "url"))
    var tokenURL: String?

    @Option(help: ArgumentHelp("The ICD-11 MMS release (default 2024-01, or MEDVAULT_ICD_RELEASE).", valueName: "YYYY-MM"))
    var release: String?

    @Option(help: ArgumentHelp("Seconds a request may take.", valueName: "seconds"))
    var timeout = 15

    @Option(name: .customLong("lang"), help: ArgumentHelp("The language of the titles (es, en, …).", valueName: "tag"))
    var language = "es"

    func validate() throws {
        if timeout < 1 || timeout > 300 { throw ValidationError("--timeout must be between 1 and 300 seconds") }
        if !ICD11Entity.isValidLanguage(language) { throw ValidationError("--lang must be a language tag such as es or en") }
    }

    /// The client these options and the environment describe.
    ///
    /// - Throws: `CLIError` (usage) for a malformed URL, or for the WHO's server without
    ///   credentials; `invalidArgument` from the client's own checks.
    func client(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> WHOICDClient {
        let base = try url(baseURL ?? environment["MEDVAULT_ICD_BASE_URL"], option: "--base-url")
            ?? WHOICDClient.Configuration.whoBaseURL
        let token = try url(tokenURL ?? environment["MEDVAULT_ICD_TOKEN_URL"], option: "--token-url")
            ?? WHOICDClient.Configuration.whoTokenURL
        var credentials: ICD11Credentials?
        if let id = environment["MEDVAULT_ICD_CLIENT_ID"], let secret = environment["MEDVAULT_ICD_CLIENT_SECRET"],
           !id.isEmpty, !secret.isEmpty {
            credentials = ICD11Credentials(clientID: id, clientSecret: secret)
        } else if base == WHOICDClient.Configuration.whoBaseURL {
            throw CLIError(status: ExitCodes.usage, message: """
                the WHO ICD-API needs MEDVAULT_ICD_CLIENT_ID and MEDVAULT_ICD_CLIENT_SECRET in the environment \
                (or give --base-url of a local ICD-API container)
                """)
        }
        let configuration = WHOICDClient.Configuration(
            baseURL: base, tokenURL: token, credentials: credentials,
            release: release ?? environment["MEDVAULT_ICD_RELEASE"] ?? "2024-01", timeout: .seconds(timeout))
        return try WHOICDClient(configuration: configuration)
    }

    private func url(_ text: String?, option: String) throws -> URL? {
        guard let text, !text.isEmpty else { return nil }
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
            throw CLIError(status: ExitCodes.usage, message: "\(option) is not a URL such as http://localhost:8382")
        }
        return url
    }
}
