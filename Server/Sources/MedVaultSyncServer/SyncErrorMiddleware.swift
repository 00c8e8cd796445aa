import Foundation
import Hummingbird
import Logging
import MedVaultSyncWire
import NIOCore
import NIOHTTP1
import PostgresNIO

/// Turns every error into a JSON ``MedVaultSyncWire/SyncErrorBody`` response and logs
/// server failures by type only: no request bytes, no query parameters, no token.
struct SyncErrorMiddleware: RouterMiddleware {
    typealias Context = SyncRequestContext

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let mapped = Self.map(error)
            if mapped.status.code >= 500 {
                context.logger.error("request failed", metadata: Self.describe(error))
            } else if Self.isClientGone(error) {
                // A phone that loses its network mid-upload: routine, not a failure.
                context.logger.debug("client closed the connection", metadata: Self.describe(error))
            }
            return try mapped.response(from: request, context: context)
        }
    }

    /// SQLSTATEs after which the same request may succeed: class 57, operator
    /// intervention (PostgreSQL shutting down or starting up); 40001 and 40P01, a
    /// serialization failure or deadlock; 53100, 53200 and 53300, a full disk, no memory,
    /// too many connections; 08000, 08003 and 08006, a lost connection reported by the
    /// server; 25006, a read-only transaction (a standby during a failover). Others of
    /// those classes (40002, 53400, 08P01…) fail the same way every time.
    static func isTransient(_ sqlState: String) -> Bool {
        sqlState.hasPrefix("57") || transientStates.contains(sqlState)
    }

    static let transientStates: Set<String> = [
        "40001", "40P01", "53100", "53200", "53300", "08000", "08003", "08006", "25006",
    ]

    static func map(_ error: any Error) -> SyncServerError {
        switch error {
        case let error as SyncServerError:
            return error
        case is NIOTooManyBytesError:
            return .tooLarge
        case is HTTPParserError:
            // Malformed HTTP: a chunk-size line that is not hex, a bad header, a cut body.
            return .badRequest("The request is not valid HTTP.")
        case _ where isClientGone(error):
            return .clientGone
        case let error as SyncWireError:
            return .badRequest("Invalid field \(error.field): \(error.reason).")
        case is DecodingError:
            return .badRequest("The body is not the JSON this route expects.")
        case let error as PSQLError:
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown:
                return .unavailable
            case .server where error.serverInfo?[.sqlState].map(Self.isTransient) == true:
                // The transaction rolled back for a reason that passes: try again soon.
                return .unavailable
            default:
                return .internalError
            }
        case let error as any HTTPResponseError:
            switch error.status {
            case .notFound, .methodNotAllowed: return .notFound
            case .contentTooLarge: return .tooLarge
            case .badRequest: return .badRequest("The request is malformed.")
            default: return SyncServerError(error.status, .internalError, "The request failed.")
            }
        default:
            return .internalError
        }
    }

    /// Whether `error` says the client closed the connection before its request was read
    /// (the answer then reaches nobody; it is counted as a 4xx, logged at debug level).
    static func isClientGone(_ error: any Error) -> Bool {
        switch error {
        case let error as ChannelError:
            return [.ioOnClosedChannel, .eof, .outputClosed, .inputClosed, .alreadyClosed].contains(error)
        case let error as IOError:
            return [ECONNRESET, EPIPE].contains(error.errnoCode)
        default:
            return false
        }
    }

    /// Metadata safe to log: the error's type, and for PostgreSQL its code and SQLSTATE.
    static func describe(_ error: any Error) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["error.type": "\(type(of: error))"]
        if let error = error as? PSQLError {
            metadata["psql.code"] = "\(error.code)"
            if let state = error.serverInfo?[.sqlState] { metadata["psql.sqlstate"] = "\(state)" }
        }
        return metadata
    }
}
