// swift-tools-version:6.1
//
// Two apps as a new user writes them, built by `make readme-app` and
// `make grdb-coexistence` (CI) in one scratch folder, so MedVault is built once:
//
// - ReadmeApp depends on the `MedVault` product ALONE and its code is the README's
//   examples, verbatim (ReadmeFixtureSyncTests in MedVaultTests fails when README.md
//   and these files drift apart).
// - GRDBCoexistence is an app that also uses GRDB (on the system SQLite) for its own
//   data: in one process, in either order, GRDB writes and reads a plain database and
//   MedVault creates, reopens and reads a vault. It also compiles both APIs side by
//   side without an ambiguous name.

import PackageDescription

let package = Package(
    name: "ReadmeApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "MedVault", path: "../../.."),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "ReadmeApp",
            dependencies: [.product(name: "MedVault", package: "MedVault")]
        ),
        .executableTarget(
            name: "GRDBCoexistence",
            dependencies: [
                .product(name: "MedVault", package: "MedVault"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
