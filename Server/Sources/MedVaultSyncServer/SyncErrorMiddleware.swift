import Foundation
import Hummingbird
import Logging
import MedVaultCore
import MedVaultSyncWire
import NIOCore
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
            }
            return try mapped.response(from: request, context: context)
        }
    }

    /// SQLSTATEs after which the same request may succeed: class 57, operator
    /// intervention (PostgreSQL shutting down or starting up); 40, a serialization
    /// failure or deadlock; 53, insufficient resources (disk full, too many
    /// connections); 08, a lost connection reported by the server; 25006, a read-only
    /// transaction (a standby during a failover).
    static func isTransient(_ sqlState: String) -> Bool {
        ["57", "40", "53", "08"].contains(where: sqlState.hasPrefix) || sqlState == "25006"
    }

    static func map(_ error: any Error) -> SyncServerError {
        switch error {
        case let error as SyncServerError:
            return error
        case is NIOTooManyBytesError:
            return .tooLarge
        case let error as MedVaultError where error.code == .validation:
            return .badRequest("Invalid field \(error.field ?? "?"): \(error.reason).")
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
