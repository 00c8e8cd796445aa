import Foundation
import Testing

/// The switches that turn the change log or the audit trail off (and write synthetic,
/// validly signed audit entries) compile only under the package trait
/// `BenchmarkSwitches`, and the raw sync keys (`withSyncKeysSPI`) only under
/// `SyncKeysSPI`, both off by default (only the benchmark and server packages' manifests
/// name them): the library an app links with the default traits — this build's — holds
/// none of them, so no import, `@_spi` or otherwise, reaches them (issue #35). The
/// benchmark's statement probe (`StatementProbe`), which watches every statement's SQL
/// text, is compiled under `BenchmarkSwitches` too: its mangled class name
/// (`14StatementProbeC`) is looked for, since its empty file's object still carries the
/// file's name.
@Suite("No bypass switches in the shipped library")
struct NoBypassSwitchesTests {
    static let switches = ["_auditTrailDisabled", "_changeLogDisabled", "_appendSyntheticEntries",
                           "appendSyntheticAuditEntries", "withSyncKeysSPI", "14StatementProbeC", "_statementProbe"]

    /// The object files of the MedVault module in this build.
    static func objectFiles() throws -> [URL] {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [products, products.deletingLastPathComponent()] {
            let module = folder.appendingPathComponent("MedVault.build")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: module.path) else { continue }
            let objects = names.filter { $0.hasSuffix(".o") }.map { module.appendingPathComponent($0) }
            if !objects.isEmpty { return objects }
        }
        Issue.record("no MedVault.build folder beside \(products.path)")
        return []
    }

    @Test("No object file of the MedVault module names a switch that turns the change log or the audit trail off, or hands out the sync keys")
    func switchesAreAbsent() throws {
        let objects = try Self.objectFiles()
        // `make docs` (swift package dump-symbol-graph) rebuilds the module with every
        // trait on; a `swift test --skip-build` right after would scan those objects, not
        // the ones this binary was linked from. `swift test` alone rebuilds them.
        let linked = (try? FileManager.default.attributesOfItem(
            atPath: CommandLine.arguments[0])[.modificationDate] as? Date) ?? .distantFuture
        let rebuilt = objects.filter {
            ((try? FileManager.default.attributesOfItem(atPath: $0.path)[.modificationDate] as? Date) ?? .distantPast) > linked
        }
        try #require(rebuilt.isEmpty, """
            \(rebuilt.count) objects were rebuilt after this test binary (make docs builds with every trait): \
            run swift test without --skip-build
            """)
        #expect(objects.count > 50, "\(objects.count) object files: not the module's build")
        // One that must be there: the check would see a name if it were compiled in.
        var sawControl = false
        for object in objects {
            let bytes = try Data(contentsOf: object)
            for name in Self.switches {
                #expect(bytes.range(of: Data(name.utf8)) == nil, "\(name) is compiled into \(object.lastPathComponent)")
            }
            if bytes.range(of: Data("busyTimeoutMilliseconds".utf8)) != nil { sawControl = true }
        }
        #expect(sawControl, "the scan did not find a property every build has: it reads the wrong files")
    }
}
