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
                // `[@attr…] [public|package|internal|…] import [struct|class|…] Module[.Name]`
                // An import is at the top level: an indented "import" is a string's or a comment's.
                guard let first = line.first, first != " ", first != "/" else { continue }
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"),
                      words[..<index].allSatisfy({
                          ($0.hasPrefix("@") && !$0.contains("\"")) || Self.accessLevels.contains(String($0))
                      })
                else { continue }
                let rest = words[(index + 1)...].drop { Self.importKinds.contains(String($0)) }
                if let path = rest.first, let module = path.split(separator: ".").first {
                    modules.insert(String(module))
                }
            }
        }
        #expect(count > 0, "no Swift file under \(folder)")
        return modules
    }

    static let accessLevels: Set<String> = ["public", "package", "internal", "fileprivate", "private"]
    static let importKinds: Set<String> = ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var"]

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

    /// Each target's declared dependencies (string literals only), read from Package.swift.
    static func declaredDependencies() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var result: [String: Set<String>] = [:]
        for block in manifest.components(separatedBy: "name: \"").dropFirst() {
            guard let name = block.split(separator: "\"").first,
                  let start = block.range(of: "dependencies: ["), let end = block[start.upperBound...].firstIndex(of: "]")
            else { continue }
            let list = block[start.upperBound..<end]
                .split(separator: "\"", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            result[String(name)] = Set(list)
        }
        return result
    }

    @Test("Each test target imports only the modules Package.swift gives it (an undeclared one builds only by luck of order)")
    func testTargets() throws {
        let library: Set<String> = ["Foundation", "FoundationNetworking", "Testing", "Glibc", "Darwin", "Musl"]
        let declared = try Self.declaredDependencies()
        for target in ["MedVaultTestSupport", "MedVaultTests", "MedVaultSyncTests", "MedVaultICD11Tests"] {
            let modules = try #require(declared[target], "\(target) in Package.swift")
            let extra = try Self.imports(under: "Tests/\(target)").subtracting(library).subtracting(modules)
            #expect(extra.isEmpty, "\(target) imports \(extra.sorted())")
        }
        #expect(declared["MedVaultSyncWire"] == ["CSodium", "MedVaultJSONShape"])
    }

    @Test("ICD-11 imports MedVaultCore and networking only: no SQLCipher, no keys")
    func icd11() throws {
        #expect(try Self.imports(under: "Sources/MedVaultICD11").isSubset(of: ["Foundation", "FoundationNetworking", "MedVaultCore"]))
    }
}
