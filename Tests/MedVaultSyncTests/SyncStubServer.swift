import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MedVaultCore
import MedVaultSync
import MedVaultTestSupport
import Testing

/// `Tests/Scripts/sync_stub_server.py` (a ``PythonTestServer``): a scripted HTTP/1.1
/// responder on 127.0.0.1 and a free port that answers what the test queued and records every request, for the unit
/// tests of `HTTPSyncTransport` (no sync server, no PostgreSQL).
final class SyncStubServer: Sendable {
    private let server: PythonTestServer
    var port: Int { server.port }

    /// One scripted answer.
    struct Answer: Encodable {
        var status: Int
        var headers: [String: String] = [:]
        var body: String = ""
        var size: Int?
        var delay: Double?
    }

    /// One request the stub received.
    struct Received: Decodable {
        let method: String
        let path: String
        let headers: [String: String]
        let body: String

        var bodyData: Data { Data(base64Encoded: body) ?? Data() }
    }

    init() async throws {
        server = try await PythonTestServer(script: "sync_stub_server.py", what: "sync stub server")
    }

    /// Stops the stub (idempotent).
    func stop() { server.stop() }

    var baseURL: URL { server.baseURL }

    /// Queues answers, in order; the last one repeats once the queue is empty.
    func script(_ answers: [Answer]) async throws {
        try await call("POST", "/_script", body: try JSONEncoder().encode(answers))
    }

    /// Queues a JSON error answer as the sync server writes them.
    static func error(_ status: Int, _ code: String, message: String = "fixed", headers: [String: String] = [:]) -> Answer {
        Answer(status: status, headers: headers, body: "{\"error\":\"\(code)\",\"message\":\"\(message)\"}")
    }

    func received() async throws -> [Received] {
        try JSONDecoder().decode([Received].self, from: try await call("GET", "/_requests"))
    }

    func stolenCount() async throws -> Int {
        struct Stats: Decodable { let stolen: Int }
        return try JSONDecoder().decode(Stats.self, from: try await call("GET", "/_stats")).stolen
    }

    @discardableResult
    private func call(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
        try await server.call(method, path, body: body)
    }
}

/// Values recorded from several threads or tasks, in order.
final class Recorded<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `values` is only touched under `lock`.
    private let lock = NSLock()
    private var values: [Value] = []

    func record(_ value: Value) {
        lock.withLock { values.append(value) }
    }

    var all: [Value] { lock.withLock { values } }
}

/// The waits a transport asked for, instead of sleeping them.
typealias RecordedSleeps = Recorded<Duration>

/// Runs `body` with a fresh stub, stopped afterwards whatever happens.
func withSyncStub<Value>(_ body: (SyncStubServer) async throws -> Value) async throws -> Value {
    let server = try await SyncStubServer()
    defer { server.stop() }
    return try await body(server)
}

/// A loopback port where nobody listens, held for the test's lifetime: a socket bound to
/// it but never listening, so connections are refused at once and no other test can
/// take the port in the meantime (a freed port may be handed to a parallel test).
final class RefusingPort: @unchecked Sendable {
    // @unchecked: `descriptor` is set once in init and only closed in deinit.
    let port: Int
    private let descriptor: Int32

    init() throws {
        (descriptor, port) = try boundLoopbackSocket()
    }

    deinit { close(descriptor) }
}

/// A TCP socket bound to 127.0.0.1 and a free port, not listening yet: its descriptor
/// and port.
func boundLoopbackSocket() throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw MedVaultError(.storage, reason: "socket failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard bound == 0, named == 0 else {
        close(descriptor)
        throw MedVaultError(.storage, reason: "bind failed")
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// Accepts connections on 127.0.0.1 and a free port until stopped, handing each to
/// `handle` on a thread of its own (which closes it): the listening part of the tests'
/// hand-made servers.
final class LoopbackAcceptor: @unchecked Sendable {
    // @unchecked: `listener` and `handle` are set once in init; `count` and `stopped` are
    // only touched while holding `lock`.
    let port: Int
    private let listener: Int32
    private let handle: @Sendable (Int32) -> Void
    private let lock = NSLock()
    private var count = 0
    private var stopped = false

    /// Connections accepted so far.
    var connections: Int { lock.withLock { count } }

    init(handle: @escaping @Sendable (Int32) -> Void) throws {
        (listener, port) = try boundLoopbackSocket()
        self.handle = handle
        guard listen(listener, 16) == 0 else {
            close(listener)
            throw MedVaultError(.storage, reason: "the test server could not listen")
        }
        Thread.detachNewThread { [self] in serve() }
    }

    /// A server that reads each request (one read, up to 64 KiB), sends `answer` as it is
    /// and closes the connection.
    static func answering(_ answer: String) throws -> LoopbackAcceptor {
        let bytes = Array(answer.utf8)
        return try LoopbackAcceptor { connection in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            _ = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(connection)
        }
    }

    /// Stops accepting (within 100 ms); connections being handled go on.
    func stop() { lock.withLock { stopped = true } }

    private func serve() {
        while !lock.withLock({ stopped }) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            lock.withLock { count += 1 }
            let handle = handle
            Thread.detachNewThread { handle(connection) }
        }
        close(listener)
    }
}
