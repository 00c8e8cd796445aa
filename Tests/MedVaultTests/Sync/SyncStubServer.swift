import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MedVaultCore
import MedVaultSync
import Testing

/// `Tests/Scripts/sync_stub_server.py`: a scripted HTTP/1.1 responder on 127.0.0.1 and a
/// free port that answers what the test queued and records every request, for the unit
/// tests of `HTTPSyncTransport` (no sync server, no PostgreSQL).
final class SyncStubServer: @unchecked Sendable {
    // @unchecked: `process` and `lifeline` are set once in init and only used by stop(),
    // which TestProcess (its wait status under a lock) and FileHandle allow from any thread.
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/sync_stub_server.py")

    let port: Int
    private let process: TestProcess
    private let lifeline: Pipe

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

    init() throws {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path]
        let output = Pipe(), lifeline = Pipe()
        process.standardInput = lifeline
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw MedVaultError(.invalidArgument, reason: "the sync stub server did not start (is python3 installed?)")
        }
        self.port = port
        self.process = process
        self.lifeline = lifeline
    }

    deinit { stop() }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? lifeline.fileHandleForWriting.close()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

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
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        let (data, _) = try await URLSession.shared.data(for: request)
        return data
    }
}

/// The waits a transport asked for, instead of sleeping them.
final class RecordedSleeps: @unchecked Sendable {
    // @unchecked: `waits` is only touched under `lock`.
    private let lock = NSLock()
    private var waits: [Duration] = []

    func record(_ duration: Duration) {
        lock.withLock { waits.append(duration) }
    }

    var all: [Duration] { lock.withLock { waits } }
}

/// Runs `body` with a fresh stub, stopped afterwards whatever happens.
func withSyncStub<Value>(_ body: (SyncStubServer) async throws -> Value) async throws -> Value {
    let server = try SyncStubServer()
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
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
