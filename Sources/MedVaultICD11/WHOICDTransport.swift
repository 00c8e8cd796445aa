import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MedVaultCore

/// The HTTP side of `WHOICDClient`: one ephemeral URLSession, the token cache, the
/// `Retry-After` gate, and the mapping of every failure to a `MedVaultError`.
final class WHOICDTransport: Sendable {
    /// The largest answer read (8 MiB): an entity or a search page is a few KiB.
    static let maximumBodySize = 8 << 20

    private let configuration: WHOICDClient.Configuration
    private let session: URLSession
    private let tokens: ICD11TokenCache?
    private let gate = ICD11RetryGate()

    init(configuration: WHOICDClient.Configuration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.timeoutIntervalForRequest = Self.seconds(configuration.timeout)
        sessionConfiguration.timeoutIntervalForResource = Self.seconds(configuration.timeout)
        let session = URLSession(configuration: sessionConfiguration, delegate: RedirectRefusal(), delegateQueue: nil)
        self.session = session
        if let credentials = configuration.credentials {
            let tokenURL = configuration.tokenURL
            let timeout = configuration.timeout
            tokens = ICD11TokenCache(margin: configuration.tokenRefreshMargin) {
                try await Self.fetchToken(session: session, url: tokenURL, credentials: credentials, timeout: timeout)
            }
        } else {
            tokens = nil
        }
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    // MARK: - API calls

    /// `GET {base}/{path}?{query}` with the API headers and the bearer token; a 401
    /// with a cached token refreshes it once and retries once.
    func get(_ path: String, query: [(String, String)], language: String) async throws -> Data {
        try await gate.check()
        let url = try url(path, query: query)
        var token = try await tokens?.token()
        var (data, response) = try await send(request(url, language: language, token: token))
        if response.statusCode == 401, let tokens, let refused = token {
            await tokens.invalidate(refused)
            token = try await tokens.token()
            (data, response) = try await send(request(url, language: language, token: token))
        }
        return try await checked(data, response)
    }

    private func url(_ path: String, query: [(String, String)]) throws -> URL {
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var text = base + "/" + path
        if !query.isEmpty {
            text += "?" + query.map { Self.formEncoded($0.0) + "=" + Self.formEncoded($0.1) }.joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw MedVaultError(.invalidArgument, reason: "the request URL is malformed") }
        return url
    }

    private func request(_ url: URL, language: String, token: String?) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData,
                                 timeoutInterval: Self.seconds(configuration.timeout))
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("v2", forHTTPHeaderField: "API-Version")
        request.setValue(language, forHTTPHeaderField: "Accept-Language")
        if let token { request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization") }
        return request
    }

    private func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await Self.send(request, session: session)
    }

    private static func send(_ request: URLRequest, session: URLSession) async throws -> (Data, HTTPURLResponse) {
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw ICD11Errors.from(error)
        }
        guard let http = response as? HTTPURLResponse else { throw ICD11Errors.badResponse("the answer is not HTTP") }
        guard data.count <= maximumBodySize else { throw ICD11Errors.badResponse("the answer is too large") }
        return (data, http)
    }

    /// `data` when the status is 2xx; otherwise the status's error (a 429 also starts
    /// the `Retry-After` wait).
    private func checked(_ data: Data, _ response: HTTPURLResponse) async throws -> Data {
        let status = response.statusCode
        if (200..<300).contains(status) { return data }
        let retryAfter = HTTPExchangeFailure.retryAfter(response.value(forHTTPHeaderField: "Retry-After"))
        if status == 429 { await gate.wait(retryAfter ?? .seconds(1)) }
        throw ICD11Errors.from(status: status, retryAfter: retryAfter)
    }

    // MARK: - Token

    /// `POST` to the token endpoint: `grant_type=client_credentials`, the client's id and
    /// secret, `scope=icdapi_access`.
    private static func fetchToken(session: URLSession, url: URL, credentials: ICD11Credentials,
                                   timeout: Duration) async throws -> (value: String, lifetime: Duration) {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: seconds(timeout))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let form = [
            ("grant_type", "client_credentials"), ("client_id", credentials.clientID),
            ("client_secret", credentials.clientSecret), ("scope", "icdapi_access"),
        ]
        request.httpBody = Data(form.map { formEncoded($0.0) + "=" + formEncoded($0.1) }.joined(separator: "&").utf8)
        let (data, response) = try await send(request, session: session)
        switch response.statusCode {
        case 200..<300: break
        case 400, 401, 403: throw ICD11Errors.tokenRefused
        default:
            throw ICD11Errors.from(status: response.statusCode,
                                   retryAfter: HTTPExchangeFailure.retryAfter(response.value(forHTTPHeaderField: "Retry-After")))
        }
        let answer = try WHOICDResponses.decode(WHOICDResponses.Token.self, from: data)
        // The token goes into a header: visible ASCII only, no CR/LF to forge another header.
        let value = answer.access_token
        guard (1...16_384).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }),
              answer.expires_in > 0
        else { throw ICD11Errors.badResponse("the token answer is unusable") }
        return (value, .seconds(min(answer.expires_in, 86_400 * 30)))
    }

    /// `text` percent-encoded for a form or query value: everything but the unreserved
    /// characters of RFC 3986.
    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// Refuses every redirect: the 3xx answer itself comes back and becomes `badResponse`,
/// so a bearer token is never sent on to a host the configuration did not name.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
