import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MedVaultCore

/// A test HTTP server written in Python (`Tests/Scripts/<name>.py`) on 127.0.0.1 and a
/// free port: started by the test that uses it, which reads the `PORT <n>` line it prints,
/// and stopped with SIGKILL. It also exits by itself when its standard input closes, so
/// a test process that dies takes it along.
package final class PythonTestServer: @unchecked Sendable {
    // @unchecked: `child` is set once in init and only used by stop(), which TestProcess
    // (its wait status under a lock) and FileHandle allow from any thread.
    package let port: Int
    private let child: PythonChild

    /// The folder of the test scripts.
    package static let scripts = PythonChild.scripts

    /// Starts `Tests/Scripts/<script>` with `arguments` and waits for the port it printed.
    ///
    /// - Throws: `invalidArgument` naming `what` when it printed no port (python3 missing,
    ///   a script error); the process is then killed.
    package init(script: String, arguments: [String] = [], what: String) async throws {
        let child = try await PythonChild(script: script, arguments: arguments)
        guard child.firstLine.hasPrefix("PORT "), let port = Int(child.firstLine.dropFirst(5)) else {
            child.stop()
            throw MedVaultError(.invalidArgument, reason: "the \(what) did not start (is python3 installed?)")
        }
        self.port = port
        self.child = child
    }

    deinit { stop() }

    /// Stops the server (idempotent): SIGKILL, which no inherited signal disposition can
    /// ignore, then waits for it.
    package func stop() {
        child.stop()
    }

    /// `http://127.0.0.1:<port>`.
    package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// One request to the server's control routes; the answer's body.
    @discardableResult
    package func call(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        let (data, _) = try await URLSession.shared.data(for: request)
        return data
    }
}
