import Foundation
import Testing

/// The module edges docs/architecture.md draws, read from the sources' `import` lines:
/// SwiftPM can let a target import a module it does not declare when that module is built
/// anyway, so the declared dependencies alone do not prove an edge is absent.
@Suite("Architecture: module edges")
struct ModuleEdgeTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every module a folder's Swift files import (`@testable` and `@_exported` included).
    static func imports(under folder: String) throws -> Set<String> {
        let base = root.appendingPathComponent(folder)
        guard let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileNoSuchFile)
        }
        var modules = Set<String>()
        var count = 0
        for case let file as URL in files where file.pathExtension == "swift" {
            count += 1
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") }),
                   index + 1 < words.count {
                    modules.insert(String(words[index + 1]))
                }
            }
        }
        #expect(count > 0, "no Swift file under \(folder)")
        return modules
    }

    @Test("The wire module and the JSON shape reader import no MedVault module above them; the server none but the wire")
    func lowerModules() throws {
        #expect(try Self.imports(under: "Sources/MedVaultJSONShape").isSubset(of: ["Foundation"]))
        #expect(try Self.imports(under: "Sources/MedVaultSyncWire").isSubset(of: ["Foundation", "CSodium", "MedVaultJSONShape"]))
        #expect(try Self.imports(under: "Sources/MedVaultCore").isSubset(of: ["Foundation", "CSodium", "MedVaultJSONShape"]))
        let server = try Self.imports(under: "Server/Sources/MedVaultSyncServer")
        #expect(server.contains("MedVaultSyncWire"))
        #expect(server.isDisjoint(with: ["MedVaultCore", "MedVault", "MedVaultKeys", "MedVaultSync", "MedVaultJSONShape"]),
                "\(server.sorted())")
    }

    @Test("ICD-11 imports MedVaultCore and networking only: no SQLCipher, no keys")
    func icd11() throws {
        #expect(try Self.imports(under: "Sources/MedVaultICD11").isSubset(of: ["Foundation", "FoundationNetworking", "MedVaultCore"]))
    }
}
