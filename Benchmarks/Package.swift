// swift-tools-version:6.1
//
// MedVault's benchmarks: their own package, so an app that depends on MedVault never
// resolves GRDB or builds benchmark code. Run with `make bench` / `make bench-quick`
// from the repository root (docs/benchmarks-method.md).
//
//   MedVaultBenchmarks  the runner: MedVault, raw SQLCipher C (same SQL and a plain
//        │              schema), libargon2; spawns GRDBReference and reads its JSON
//        │
//   GRDBReference       GRDB 7.10 on plain SQLite, in its own process: libsqlcipher and
//        │              libsqlite3 export the same sqlite3_* symbols, so one binary would
//        │              silently run one library's code for both
//   BenchmarkSupport    the deterministic dataset, statistics, the parent/child protocol;
//                       links no SQLite
//
//   CSQLCipherBench, CArgon2Bench: the C APIs under names distinct from the root
//   package's CSQLCipher/CArgon2 targets (one package graph cannot hold two targets
//   with one name); same headers, same libraries.

import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "MedVaultBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // With the switches that turn the change log and the audit trail off, which the
        // library compiles only under this trait (never in an app's build).
        .package(name: "MedVault", path: "..", traits: ["BenchmarkSwitches", "SyncKeysSPI"]),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLCipherBench",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"]), .brew(["sqlcipher"])]
        ),
        .systemLibrary(
            name: "CArgon2Bench",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"]), .brew(["argon2"])]
        ),
        .target(
            name: "BenchmarkSupport",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "GRDBReference",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "MedVaultBenchmarks",
            dependencies: [
                "BenchmarkSupport", "CSQLCipherBench", "CArgon2Bench",
                .product(name: "MedVault", package: "MedVault"),
                .product(name: "MedVaultKeys", package: "MedVault"),
                .product(name: "MedVaultCore", package: "MedVault"),
                .product(name: "MedVaultSync", package: "MedVault"),
                .product(name: "MedVaultSyncWire", package: "MedVault"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
