// swift-tools-version:6.1
//
// An app as a new user writes it: it depends on the `MedVault` product ALONE and its
// code is the README's examples, verbatim (ReadmeFixtureSyncTests in MedVaultTests
// fails when README.md and these files drift apart). `make readme-app` builds and runs
// it; CI calls that target.

import PackageDescription

let package = Package(
    name: "ReadmeApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "MedVault", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "ReadmeApp",
            dependencies: [.product(name: "MedVault", package: "MedVault")]
        ),
    ]
)
