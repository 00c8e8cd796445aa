import Foundation
import Testing

/// The README's ```swift blocks are the code of Tests/Fixtures/ReadmeApp, an app that
/// depends on the `MedVault` product alone (`make readme-app` compiles and runs it; CI
/// calls it). This test fails as soon as the two drift apart, so the README cannot show
/// code that the fixture does not compile.
@Suite("README fixture package")
struct ReadmeFixtureSyncTests {
    /// The repository's root, from this file's path (Tests/MedVaultTests/Vault/…).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The fixture files holding the README's blocks, in README order.
    static let fixtureFiles = [
        "ClinicalRecordsExample.swift", "UnitOfWorkExample.swift", "MedicationsExample.swift",
        "ChangeObservationExample.swift", "InMemoryVaultExample.swift",
    ]

    /// The contents of every ```swift fence of `markdown`, in order.
    static func swiftBlocks(of markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            if current == nil, line == "```swift" {
                current = []
            } else if let block = current, line == "```" {
                blocks.append(block)
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The lines between `// README:begin` and `// README:end`, without the
    /// function body's four-space indentation.
    static func readmeRegion(of source: String) -> [String] {
        let lines = source.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// README:begin" }),
              let end = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// README:end" }),
              begin < end
        else { return [] }
        return lines[(begin + 1)..<end].map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : $0 }
    }

    @Test("Every README swift block is, verbatim, the code of the fixture app")
    func readmeBlocksMatchTheFixture() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(of: readme)
        try #require(blocks.count == Self.fixtureFiles.count,
                     "README.md has \(blocks.count) swift blocks; give each a file in Tests/Fixtures/ReadmeApp")
        let sources = Self.root.appendingPathComponent("Tests/Fixtures/ReadmeApp/Sources/ReadmeApp")
        for (block, file) in zip(blocks, Self.fixtureFiles) {
            let source = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let sourceLines = Set(source.components(separatedBy: "\n"))
            let imports = block.filter { $0.hasPrefix("import ") }
            for line in imports {
                #expect(sourceLines.contains(line), "\(file) lacks the README's `\(line)`")
            }
            var code = Array(block.drop { $0.hasPrefix("import ") })
            if code.first == "" { code.removeFirst() }
            #expect(Self.readmeRegion(of: source) == code, "README.md and \(file) differ")
        }
    }

    @Test("The fixture app depends on the MedVault product alone and imports nothing else of MedVault's")
    func fixtureDependsOnTheMedVaultProductAlone() throws {
        let fixture = Self.root.appendingPathComponent("Tests/Fixtures/ReadmeApp")
        let manifest = try String(contentsOf: fixture.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".product(name: "MedVault", package: "MedVault")"#))
        #expect(!manifest.contains("MedVaultCore") && !manifest.contains("MedVaultKeys"))
        let sources = fixture.appendingPathComponent("Sources/ReadmeApp")
        for file in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let source = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let imports = source.components(separatedBy: "\n").filter { $0.hasPrefix("import ") }
            #expect(Set(imports).isSubset(of: ["import Foundation", "import MedVault"]), "\(file) imports \(imports)")
        }
    }
}
