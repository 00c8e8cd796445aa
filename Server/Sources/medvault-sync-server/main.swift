// medvault-sync-server: the zero-knowledge sync server (docs/sync-server.md).
//
// Configured by environment variables (SyncServerConfiguration); logs to standard error
// through swift-log, never with envelope bytes, record keys or tokens; prints one line
// "listening on HOST:PORT" to standard output once it accepts connections; SIGTERM and
// SIGINT shut it down gracefully (in-flight requests finish, the pool closes).

import Foundation
import Hummingbird
import Logging
import MedVaultSyncServer

let environment = ProcessInfo.processInfo.environment
let configuration: SyncServerConfiguration
do {
    configuration = try SyncServerConfiguration(environment: environment)
} catch {
    FileHandle.standardError.write(Data("medvault-sync-server: \(error)\n".utf8))
    exit(2)
}

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = configuration.logLevel
    return handler
}
let logger = Logger(label: "medvault-sync-server")

let app = SyncServer.makeApplication(configuration: configuration, logger: logger) { channel in
    let port = channel.localAddress?.port ?? configuration.port
    // Unbuffered: a supervisor (or a test) waits for this line.
    FileHandle.standardOutput.write(Data("listening on \(configuration.host):\(port)\n".utf8))
}
do {
    try await app.runService()
} catch {
    logger.critical("server stopped", metadata: ["error": "\(String(describing: error))"])
    exit(1)
}
