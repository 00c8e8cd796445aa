#if canImport(FoundationNetworking)
import CCurlHTTP
import Foundation
import FoundationNetworking
import MedVaultCore

/// The ``HTTPSyncClient`` on Linux: libcurl's easy interface, one blocking exchange on a
/// thread of its own per call (never a thread of Swift's cooperative pool), connections
/// kept for the next call in a few idle handles.
///
/// FoundationNetworking's URLSession drives the same libcurl through Dispatch, and once a
/// request body is larger than libcurl's 64 KiB upload buffer it leaves the socket's
/// write source armed: the writable socket wakes it thousands of times a millisecond
/// until the answer comes. A push of 500 envelopes spent its whole wait for the server
/// spinning a core that the server and PostgreSQL needed (docs/sync.md, "The HTTP
/// client on Linux").
final class CurlSyncClient: HTTPSyncClient, @unchecked Sendable {
    // @unchecked: `idle` is read and written under `lock` only, and a handle is in it
    // only while no thread uses it (taken out for an exchange, given back after).
    private let lock = NSLock()
    private var idle: [UnsafeMutableRawPointer] = []
    /// Idle handles kept: each holds its open connections.
    static let keptHandles = 4

    deinit {
        for handle in idle { medvault_http_handle_free(handle) }
    }

    func data(for request: URLRequest, limit: Int) async throws -> (Data, HTTPURLResponse) {
        guard let url = request.url else { throw URLError(.badURL) }
        let call = try CurlCall()
        let method = request.httpMethod ?? "GET"
        let fields = request.allHTTPHeaderFields ?? [:]
        // A request without a type (a DELETE, no body): none of libcurl's form-encoding
        // type either ("Content-Type:" removes it).
        let typeless = !fields.keys.contains { $0.lowercased() == "content-type" }
        let headers = fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" } + (typeless ? ["Content-Type:"] : [])
        let body = request.httpBody ?? Data()
        let milliseconds = Int(max(1, min(request.timeoutInterval * 1_000, Double(Int32.max))))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard call.install(continuation) else { return }
                let thread = Thread { [self] in
                    call.finish(perform(call, method: method, url: url, headers: headers, body: body,
                                        milliseconds: milliseconds, limit: limit))
                }
                thread.name = "medvault.http"
                thread.stackSize = 1 << 20
                thread.start()
            }
        } onCancel: {
            call.cancel()
        }
    }

    /// One exchange, blocking this thread.
    private func perform(_ call: CurlCall, method: String, url: URL, headers: [String], body: Data,
                         milliseconds: Int, limit: Int) -> Result<(Data, HTTPURLResponse), any Error> {
        guard let handle = takeHandle() else { return .failure(URLError(.unknown)) }
        let lines = headers.map { strdup($0) }
        defer { lines.forEach { free($0) } }
        guard lines.allSatisfy({ $0 != nil }) else {
            medvault_http_handle_free(handle)
            return .failure(URLError(.unknown))
        }
        let constant = lines.map { UnsafePointer<CChar>($0) }
        let outcome = body.withUnsafeBytes { bytes in
            constant.withUnsafeBufferPointer { headerLines in
                medvault_http_perform(handle, call.exchange, method, url.absoluteString, headerLines.baseAddress,
                                      headerLines.count, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count,
                                      milliseconds, limit)
            }
        }
        guard outcome == MEDVAULT_HTTP_OK else {
            // A handle whose exchange failed may hold a broken connection: not kept.
            medvault_http_handle_free(handle)
            return .failure(Self.error(of: outcome))
        }
        giveBack(handle)
        var length = 0
        let data = medvault_http_body(call.exchange, &length).map { Data(bytes: $0, count: length) } ?? Data()
        let status = medvault_http_status(call.exchange)
        guard let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: nil,
                                             headerFields: Self.headerFields(call.exchange)) else {
            return .failure(URLError(.cannotParseResponse))
        }
        return .success((data, response))
    }

    /// The final answer's header fields; a repeated field's values joined by ", ".
    static func headerFields(_ exchange: OpaquePointer) -> [String: String] {
        var length = 0
        guard let block = medvault_http_header_block(exchange, &length), length > 0 else { return [:] }
        let text = String(decoding: UnsafeRawBufferPointer(start: block, count: length), as: UTF8.self)
        var fields: [String: String] = [:]
        for line in text.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        return fields
    }

    /// The error URLSession gives for the same failure, so that both clients' failures
    /// map alike (`HTTPExchangeFailure`).
    static func error(of outcome: medvault_http_outcome) -> any Error {
        switch outcome {
        case MEDVAULT_HTTP_UNREACHABLE: URLError(.cannotConnectToHost)
        case MEDVAULT_HTTP_TLS: URLError(.secureConnectionFailed)
        case MEDVAULT_HTTP_TIMED_OUT: URLError(.timedOut)
        case MEDVAULT_HTTP_CONNECTION_LOST: URLError(.networkConnectionLost)
        case MEDVAULT_HTTP_EMPTY_REPLY: URLError(.badServerResponse)
        case MEDVAULT_HTTP_CANCELLED: CancellationError()
        case MEDVAULT_HTTP_UNUSABLE: URLError(.cannotParseResponse)
        case MEDVAULT_HTTP_TOO_LARGE: HTTPSyncFailure(error: HTTPSyncErrors.http.answerTooLarge, retry: .never)
        default: URLError(.unknown)
        }
    }

    private func takeHandle() -> UnsafeMutableRawPointer? {
        lock.withLock { idle.popLast() } ?? medvault_http_handle_create()
    }

    private func giveBack(_ handle: UnsafeMutableRawPointer) {
        let kept = lock.withLock { () -> Bool in
            guard idle.count < Self.keptHandles else { return false }
            idle.append(handle)
            return true
        }
        if !kept { medvault_http_handle_free(handle) }
    }
}

/// One call of ``CurlSyncClient``: its exchange (the C side's answer buffers and
/// cancellation flag) and the continuation that the first of the exchange's end and the
/// task's cancellation resumes.
final class CurlCall: @unchecked Sendable {
    // @unchecked: `continuation` and `cancelled` are read and written under `lock` only.
    // `exchange` is set once and freed in deinit, when neither the exchange's thread nor
    // the cancellation handler (both hold the call) can reach it; cancelling it from
    // another thread is an atomic store on the C side.
    let exchange: OpaquePointer
    private let lock = NSLock()
    private var continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>?
    private var cancelled = false

    init() throws {
        guard let exchange = medvault_http_exchange_create() else { throw URLError(.unknown) }
        self.exchange = exchange
    }

    deinit {
        medvault_http_exchange_free(exchange)
    }

    /// Keeps `continuation` for the exchange; a call already cancelled ends at once
    /// (`false`: start nothing).
    func install(_ continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) -> Bool {
        let proceed = lock.withLock { () -> Bool in
            guard !cancelled else { return false }
            self.continuation = continuation
            return true
        }
        if !proceed { continuation.resume(throwing: CancellationError()) }
        return proceed
    }

    /// Ends the call with `CancellationError` now; the exchange stops at libcurl's next
    /// progress call (within about a second) and its thread ends.
    func cancel() {
        let waiting = lock.withLock { () -> CheckedContinuation<(Data, HTTPURLResponse), any Error>? in
            cancelled = true
            defer { continuation = nil }
            return continuation
        }
        medvault_http_exchange_cancel(exchange)
        waiting?.resume(throwing: CancellationError())
    }

    /// Ends the call with the exchange's result, unless it was cancelled first.
    func finish(_ result: Result<(Data, HTTPURLResponse), any Error>) {
        let waiting = lock.withLock { () -> CheckedContinuation<(Data, HTTPURLResponse), any Error>? in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: result)
    }
}
#endif
