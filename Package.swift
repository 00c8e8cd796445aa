// swift-tools-version:6.1
//
// MedVault — an embeddable, encrypted clinical-records library.
//
// The modules, their layers and what each may import: docs/architecture.md (the one
// diagram; README.md links to it too). Built and tested on Linux only: see its
// "Platforms" section for what an Apple-platform app would need.

import PackageDescription

/// Settings shared by every Swift target of the package.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "MedVault",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "MedVaultCore", targets: ["MedVaultCore"]),
        .library(name: "MedVaultKeys", targets: ["MedVaultKeys"]),
        .library(name: "MedVault", targets: ["MedVault"]),
        // The WHO ICD-API client: its own product, so apps that never use the ICD-11
        // catalogue do not link networking (FoundationNetworking and libcurl on Linux).
        .library(name: "MedVaultICD11", targets: ["MedVaultICD11"]),
        .library(name: "MedVaultSyncWire", targets: ["MedVaultSyncWire"]),
        .library(name: "MedVaultSync", targets: ["MedVaultSync"]),
        .executable(name: "medvault", targets: ["medvault"]),
    ],
    // Off by default, so never in an app's build: the benchmark package turns it on to
    // measure the change log's and the audit trail's cost (DatabaseConfiguration's
    // `_changeLogDisabled`, `_auditTrailDisabled`, `VaultAuditTrail._appendSyntheticEntries`).
    // `@_spi` alone was only a naming convention: any app could import it and switch the
    // trail off (issue #35).
    traits: [
        .trait(name: "BenchmarkSwitches",
               description: "Switches that turn the change log or the audit trail off, for make bench only."),
        // The raw sync keys (`Vault.withSyncKeysSPI`), for code outside this package that
        // must seal like a device: the sync server's end-to-end tests and the sealing
        // benchmark. Off by default: an app cannot take the vault's sync keys.
        .trait(name: "SyncKeysSPI",
               description: "Raw sync keys for the sync server's tests and the sealing benchmark only."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // MARK: - System libraries

        // SQLCipher, loaded at run time and kept private to MedVault (dlopen with
        // RTLD_LOCAL | RTLD_DEEPBIND on Linux), so that an app may also link the system
        // SQLite (any other SQLite library of the app): see Sources/CSQLCipher/include/CSQLCipher.h.
        // Not linked on Linux.
        .target(
            name: "CSQLCipher",
            linkerSettings: [
                .linkedLibrary("dl", .when(platforms: [.linux])),
                .linkedLibrary("sqlcipher", .when(platforms: [.macOS, .iOS])),
            ]
        ),
        .systemLibrary(
            name: "CArgon2",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"]), .brew(["argon2"])]
        ),
        // libsodium: every primitive — ChaCha20-Poly1305, HMAC-SHA256, SHA-256, Ed25519,
        // X25519 sealed boxes, constant-time comparison and guarded, locked, wiped memory
        // for secrets (docs/keyring-format.md, "Primitives").
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),

        // MARK: - Library modules

        // The JSON shape reader (repeated and unknown keys) and strict UTF-8 decoding, shared
        // by MedVaultCore's import, MedVaultSyncWire's duplicate-key check, MedVaultKeys and
        // MedVaultSync: below Core and the wire, so the server needs no Core.
        .target(
            name: "MedVaultJSONShape",
            swiftSettings: strictSettings
        ),
        .target(
            name: "MedVaultCore",
            // libsodium for attachments' SHA-256 (see SHA256Hasher for why not an injected
            // protocol) and the session signatures' Ed25519 check.
            dependencies: ["CSodium", "MedVaultJSONShape"],
            swiftSettings: strictSettings
        ),
        // Clears vector registers and the stack below the caller after a computation on
        // a secret (Sources/CSecretScrub/include/CSecretScrub.h).
        .target(name: "CSecretScrub"),
        // The sync transport's HTTP client on Linux: libcurl's easy interface
        // (Sources/CCurlHTTP/include/CCurlHTTP.h; docs/sync.md, "The HTTP client on
        // Linux"). Elsewhere a stub: URLSession is used there.
        .target(
            name: "CCurlHTTP",
            linkerSettings: [.linkedLibrary("curl", .when(platforms: [.linux]))]
        ),
        .target(
            name: "MedVaultKeys",
            dependencies: [
                "MedVaultCore",
                "MedVaultJSONShape",
                "CSecretScrub",
                "CArgon2",
                "CSodium",
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MedVault",
            dependencies: ["MedVaultCore", "MedVaultKeys", "CSQLCipher"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MedVaultSyncWire",
            dependencies: ["CSodium", "MedVaultJSONShape"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MedVaultSync",
            dependencies: ["MedVault", "MedVaultKeys", "MedVaultCore", "MedVaultSyncWire", "MedVaultJSONShape", "CCurlHTTP"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MedVaultICD11",
            // Core only (the catalogue protocol, entities and the cache protocol): the
            // client links neither SQLCipher nor the keys. The vault's offline cache
            // (MedVault's `SQLCipherICD11CacheRepository`) is the app's to pass in.
            dependencies: ["MedVaultCore"],
            swiftSettings: strictSettings
        ),

        // MARK: - Examples

        .executableTarget(
            name: "ClinicDemo",
            dependencies: ["MedVault"],
            path: "Examples/ClinicDemo",
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "MedicationDemo",
            dependencies: ["MedVault"],
            path: "Examples/MedicationDemo",
            swiftSettings: strictSettings
        ),
        // `make sync-demo`: two device vaults syncing through a local medvault-sync-server.
        .executableTarget(
            name: "SyncDemo",
            dependencies: ["MedVault", "MedVaultSync", "MedVaultSyncWire"],
            path: "Examples/SyncDemo",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "medvault",
            dependencies: [
                "MedVault",
                "MedVaultICD11",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/medvault",
            swiftSettings: strictSettings
        ),

        // MARK: - Tests

        .testTarget(
            name: "MedVaultCoreTests",
            dependencies: ["MedVaultCore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MedVaultKeysTests",
            dependencies: ["MedVaultKeys", "MedVaultCore", "CArgon2", "CSodium"],
            swiftSettings: strictSettings
        ),
        // The storage engine, the vault, its repositories, import, export, backup, the
        // dose journal, and the examples and CLI run as child processes.
        .testTarget(
            name: "MedVaultTests",
            dependencies: ["MedVault", "MedVaultCore", "MedVaultKeys", "MedVaultTestSupport", "CSQLCipher", "CSodium",
                           "CrashProbe", "KeyScanProbe", "medvault", "ClinicDemo", "MedicationDemo"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MedVaultSyncTests",
            dependencies: ["MedVaultSync", "MedVaultSyncWire", "MedVault", "MedVaultCore", "MedVaultKeys", "MedVaultICD11",
                           "MedVaultTestSupport", "CrashProbe"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MedVaultICD11Tests",
            dependencies: ["MedVaultICD11", "MedVault", "MedVaultCore", "MedVaultTestSupport"],
            swiftSettings: strictSettings
        ),
        // What the test targets share: temporary folders, fixtures, child processes (the
        // probes, Python checkers and servers), sync devices on an in-memory server. A
        // plain module under Tests/, linked by the test targets only: no product has it.
        .target(
            name: "MedVaultTestSupport",
            dependencies: ["MedVault", "MedVaultCore", "MedVaultKeys", "MedVaultSync", "MedVaultSyncWire", "MedVaultICD11"],
            path: "Tests/MedVaultTestSupport",
            swiftSettings: strictSettings
        ),
        // A child process the crash-safety tests kill with SIGKILL mid-write.
        .executableTarget(
            name: "CrashProbe",
            dependencies: ["MedVault", "MedVaultCore", "MedVaultKeys", "MedVaultSync", "MedVaultSyncWire"],
            path: "Tests/CrashProbe",
            swiftSettings: strictSettings
        ),
        // A child process that scans its own memory for key copies after lock().
        .executableTarget(
            name: "KeyScanProbe",
            dependencies: ["MedVault", "MedVaultKeys", "MedVaultCore", "MedVaultSync", "CSodium"],
            path: "Tests/KeyScanProbe",
            swiftSettings: strictSettings
        ),
    ]
)
