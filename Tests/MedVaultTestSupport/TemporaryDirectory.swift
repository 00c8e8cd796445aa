import Foundation

/// A fresh folder under the system's temporary directory, removed by ``remove()``.
package struct TemporaryDirectory: Sendable {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("medvault-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    package func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    package func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a temporary folder that is removed afterwards.
package func withTemporaryDirectory<Value>(_ body: (TemporaryDirectory) async throws -> Value) async throws -> Value {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try await body(directory)
}
