import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// Builds the sync server: a Hummingbird application whose services include the
/// PostgreSQL pool and which migrates the database before it accepts a connection.
///
/// For example, the executable does:
///
/// ```swift
/// let configuration = try SyncServerConfiguration(environment: ProcessInfo.processInfo.environment)
/// let app = SyncServer.makeApplication(configuration: configuration, logger: logger)
/// try await app.runService() // SIGTERM and SIGINT shut it down gracefully
/// ```
public enum SyncServer {
    /// The application.
    ///
    /// - Parameters:
    ///   - configuration: Listen address, limits and database.
    ///   - logger: The logger; request logs never carry bodies or tokens.
    ///   - onServerRunning: Called with the listening channel (its local port).
    public static func makeApplication(
        configuration: SyncServerConfiguration,
        logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        // PostgresNIO's trace lines carry the first and last bytes of each row (envelope
        // ciphertext, keyrings, keys): its logger never goes below debug.
        var databaseLogger = logger
        databaseLogger.logLevel = max(logger.logLevel, .debug)
        let client = PostgresClient(configuration: configuration.database, backgroundLogger: databaseLogger)
        let store = SyncStore(client: client, logger: databaseLogger)
        let router = Router(context: SyncRequestContext.self)
        let metrics = SyncMetrics()
        router.middlewares.add(SyncMetricsMiddleware(metrics: metrics))
        router.middlewares.add(SyncErrorMiddleware())
        if let token = configuration.metricsToken {
            // Request counts by route and status tell who registers, joins and revokes:
            // for the operator's scraper only.
            router.get("/metrics") { request, _ in
                guard DeviceToken.bearer(in: request).map({ DeviceToken.constantTimeEqual($0, token) }) == true else {
                    throw SyncServerError.missingMetricsToken
                }
                return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                                body: .init(byteBuffer: ByteBuffer(string: metrics.text())))
            }
        }
        SyncRoutes(store: store, limits: configuration.limits,
                   limiter: RateLimiter(requestsPerSecond: configuration.limits.requestsPerSecond,
                                        burst: configuration.limits.burst),
                   trustedProxies: configuration.trustedProxies,
                   registrationSecret: configuration.registrationSecret,
                   invitationsEnabled: configuration.invitationsEnabled, origin: configuration.origin)
            .add(to: router)
        var app = Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: .seconds(Int64(configuration.limits.idleTimeoutSeconds)))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: "medvault-sync-server"),
            services: [client],
            onServerRunning: onServerRunning,
            logger: logger
        )
        app.beforeServerStarts {
            try await SyncMigrator.migrate(client, logger: logger)
        }
        return app
    }
}
