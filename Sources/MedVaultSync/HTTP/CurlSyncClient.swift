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

    func data(for request: URLRequest, limit: Int, idempotent: Bool) async throws -> (Data, HTTPURLResponse) {
        guard let url = request.url else { throw URLError(.badURL) }
        let method = request.httpMethod ?? "GET"
        let lines = try Self.headerLines(request.allHTTPHeaderFields ?? [:])
        let body = request.httpBody ?? Data()
        let milliseconds = Int(max(1, min(request.timeoutInterval * 1_000, Double(Int32.max))))
        let call = try CurlCall()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard call.install(continuation) else { return }
                let started = DetachedThread.start { [self] in
                    call.finish(perform(call, method: method, url: url, headers: lines, body: body,
                                        milliseconds: milliseconds, limit: limit, fresh: !idempotent))
                }
                if !started { call.finish(.failure(URLError(.unknown))) }
            }
        } onCancel: {
            call.cancel()
        }
    }

    /// `fields` as the lines libcurl sends, in name order: `Name: value`, `Name;` for an
    /// empty or blank value ("Name:" would remove the header), and `Content-Type:` (no type at all,
    /// not libcurl's form-encoding one) when `fields` names none.
    ///
    /// - Throws: `invalidArgument` for a name that is empty or holds a colon, or a name or
    ///   value with CR, LF or NUL: libcurl sends lines as given, so CR or LF would start
    ///   another header and NUL would cut the line short. (Foundation's `URLRequest`
    ///   already drops such fields; this client does not rely on it.)
    static func headerLines(_ fields: [String: String]) throws -> [String] {
        var lines: [String] = []
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, !name.contains(":"),
                  !(name + value).utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw MedVaultError(.invalidArgument, reason: "a sync request header is malformed")
            }
            // Blank values go as "Name;": libcurl takes "Name:" (and "Name:   ") as "remove it".
            let blank = value.allSatisfy { $0 == " " || $0 == "\t" }
            lines.append(blank ? name + ";" : name + ": " + value)
        }
        if !fields.keys.contains(where: { $0.lowercased() == "content-type" }) { lines.append("Content-Type:") }
        return lines
    }

    /// One exchange, blocking this thread.
    private func perform(_ call: CurlCall, method: String, url: URL, headers: [String], body: Data,
                         milliseconds: Int, limit: Int, fresh: Bool) -> Result<(Data, HTTPURLResponse), any Error> {
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
                                      headerLines.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                      bytes.count, milliseconds, limit, fresh ? 1 : 0)
            }
        }
        guard outcome == MEDVAULT_HTTP_OK else {
            // A handle whose exchange failed may hold a broken connection: not kept.
            medvault_http_handle_free(handle)
            return .failure(Self.error(of: outcome))
        }
        giveBack(handle)
        var length = 0
        let data = medvault_http_take_body(call.exchange, &length).map {
            Data(bytesNoCopy: $0, count: length, deallocator: .free)
        } ?? Data()
        let status = medvault_http_status(call.exchange)
        guard let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: nil,
                                             headerFields: Self.headerFields(call.exchange)) else {
            return .failure(URLError(.cannotParseResponse))
        }
        return .success((data, response))
    }

    /// The final answer's header fields, names as they came (HTTP/2's are lower-case;
    /// `HTTPURLResponse` looks them up in any case); a field repeated in any case has its
    /// values joined by ", "; a folded line (starting with a space or a tab) continues the
    /// field before it. Lines may end in CRLF or LF alone.
    static func headerFields(_ exchange: OpaquePointer) -> [String: String] {
        var length = 0
        guard let block = medvault_http_header_block(exchange, &length), length > 0 else { return [:] }
        let text = String(decoding: UnsafeRawBufferPointer(start: block, count: length), as: UTF8.self)
        guard !text.isEmpty else { return [:] }
        var fields: [String: String] = [:]
        var names: [String: String] = [:]  // lower-cased name → the name first seen
        var last: String?
        // Lines end at LF alone, as libcurl reads them (not at a lone CR, U+2028 or NEL
        // inside a value, which would let a value forge another field).
        let lines = text.utf8.split(separator: UInt8(ascii: "\n")).map { bytes in
            String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes[...], as: UTF8.self)
        }
        for line in lines.dropFirst() {
            if let first = line.first, first == " " || first == "\t" {
                if let last, let value = fields[last] {
                    fields[last] = value + " " + line.trimmingCharacters(in: .whitespaces)
                }
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { last = nil; continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { last = nil; continue }
            let key = names[name.lowercased()] ?? name
            names[name.lowercased()] = key
            fields[key] = fields[key].map { $0 + ", " + value } ?? value
            last = key
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

/// Starts a detached POSIX thread with a 1 MiB stack (`medvault_http_perform` names it
/// "medvault.http"): `Thread` gives no way to learn
/// that the system refused one, and a call whose thread never starts would wait forever.
enum DetachedThread {
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Whether the thread started.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        // Allocated rather than a Swift value: the type's zero initialiser is not visible here.
        let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
        defer { attributes.deallocate() }
        guard pthread_attr_init(attributes) == 0 else { return false }
        defer { pthread_attr_destroy(attributes) }
        pthread_attr_setdetachstate(attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(attributes, 1 << 20)
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread: pthread_t = 0
        let created = pthread_create(&thread, attributes, { raw in
            guard let raw else { return nil }
            let work = Unmanaged<Work>.fromOpaque(raw).takeRetainedValue()
            work.body()
            return nil
        }, work)
        if created != 0 { Unmanaged<Work>.fromOpaque(work).release() }
        return created == 0
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
