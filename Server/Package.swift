// swift-tools-version:6.1
//
// The MedVault zero-knowledge sync server: a stateless HTTP service (Hummingbird 2) in
// front of PostgreSQL (PostgresNIO) that stores and orders sealed envelopes.
//
// Its own package, so that apps importing MedVault never resolve a server dependency.
// From the library it takes the wire values only (product MedVaultSyncWire): no storage
// engine, no key code, no record model. MedVaultSyncWire links libsodium (libsodium-dev
// to build, libsodium23 to run) for the devices' own Ed25519 check.
//
//   medvault-sync-server   executable: configuration from the environment, signals
//        │
//   MedVaultSyncServer     routes, authentication, limits, PostgreSQL store, migrations
//        │
//   MedVaultSyncWire       (../Package.swift) request and response bodies, envelopes
//
//   medvault-sync-load     the load benchmark (make bench-server), beside the server
//   MedVaultChildProcess   posix_spawn helper of the load benchmark and the tests (internal)

import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "MedVaultSyncServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "medvault-sync-server", targets: ["medvault-sync-server"]),
    ],
    dependencies: [
        // With the trait SyncKeysSPI: the end-to-end tests seal like a device
        // (`Vault.withSyncKeysSPI`). The server's executable links none of MedVault's keys code.
        .package(name: "MedVault", path: "..", traits: ["SyncKeysSPI"]),
        // Without the ConfigurationSupport trait: the server reads its own environment
        // variables, and swift-configuration would be built for nothing.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1",
                 traits: ["FullFoundation"]),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // NIOHTTP1 for its parser's error type: a malformed request is a 400, not a 500.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // NIOSSL for the database connection's certificate verification settings.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The Prometheus exposition of /metrics (counters, histograms, escaping).
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "MedVaultSyncServer",
            dependencies: [
                .product(name: "MedVaultSyncWire", package: "MedVault"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "medvault-sync-server",
            dependencies: [
                "MedVaultSyncServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // Child processes (PostgreSQL's tools, the server executable) through posix_spawn,
        // for the load benchmark and the tests. Internal: no product exports it to apps.
        .target(
            name: "MedVaultChildProcess",
            swiftSettings: strictSettings
        ),
        // The load benchmark (make bench-server): an executable target, not a product.
        // It drives the real server executable with the library's engine and transport.
        .executableTarget(
            name: "medvault-sync-load",
            dependencies: [
                "MedVaultChildProcess",
                .product(name: "MedVaultSync", package: "MedVault"),
                .product(name: "MedVault", package: "MedVault"),
                .product(name: "MedVaultKeys", package: "MedVault"),
                .product(name: "MedVaultCore", package: "MedVault"),
                .product(name: "MedVaultSyncWire", package: "MedVault"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MedVaultSyncServerTests",
            dependencies: [
                "MedVaultSyncServer",
                // Built with the tests: the crash test runs it as a child and kills it.
                "medvault-sync-server",
                "MedVaultChildProcess",
                .product(name: "MedVaultSyncWire", package: "MedVault"),
                // End-to-end tests: a real vault's sync keys, sealed envelopes and the
                // HTTP transport, against this server.
                .product(name: "MedVaultSync", package: "MedVault"),
                .product(name: "MedVault", package: "MedVault"),
                .product(name: "MedVaultKeys", package: "MedVault"),
                .product(name: "MedVaultCore", package: "MedVault"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Raw TCP for the malformed-HTTP test (URLSession sends only valid HTTP).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
