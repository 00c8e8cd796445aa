// swift-tools-version:6.1
//
// An app that imports both MedVault and GRDB: it must compile without a single
// ambiguous name. Built by `make grdb-coexistence` (CI), never by apps.
import PackageDescription

let package = Package(
    name: "GRDBCoexistence",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "MedVault", path: "../../.."),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
    ],
    targets: [
        // A library, not an executable: the point is compiling both APIs side by side
        // (linking SQLite and SQLCipher into one binary is another matter).
        .target(
            name: "GRDBCoexistence",
            dependencies: [
                .product(name: "MedVault", package: "MedVault"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
