import Foundation
import MedVaultTestSupport
import Testing

/// Out of space for real: a small tmpfs mounted in a private mount namespace
/// (`unshare --user --map-root-user --mount`, so no privileges are needed and nothing
/// is mounted outside the child).
@Suite("CLI: a full disk")
struct CLIDiskFullTests {
    /// Runs `script` with a private tmpfs of `size` mounted at `$MP` (and `$MV`, the
    /// medvault binary, `$OUT`, the scratch folder), its output and errors merged.
    /// - Returns: The output, and its lines.
    static func inPrivateTmpfs(size: String, _ script: String, scratch: TemporaryDirectory,
                               environment extra: [String: String] = [:]) async throws -> (text: String, lines: [String]) {
        let mountPoint = scratch.file("small")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--user", "--map-root-user", "--mount", "sh", "-c", """
            set -u
            mount -t tmpfs -o size=\(size) tmpfs "$MP" || { echo "MOUNT-FAILED"; exit 90; }
            \(script)
            """]
        var environment = ProcessInfo.processInfo.environment
        environment["MP"] = mountPoint.path
        environment["OUT"] = scratch.url.path
        environment["MV"] = try CLIHarness.binary()
        environment.merge(extra) { $1 }
        process.environment = environment
        let text = try await process.runCapturingOutput(mergingErrors: true).outputText
        #expect(!text.contains("MOUNT-FAILED"), "a private tmpfs could not be mounted: \(text)")
        return (text, text.split(separator: "\n").map(String.init))
    }

    @Test("rotate-key on a file system without room for the copy fails before copying, says so, and leaves nothing behind")
    func rotationWithoutRoom() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let (text, lines) = try await Self.inPrivateTmpfs(size: "8m", """
            printf '%s\\n' "$PW" | "$MV" init "$MP/v" --password-stdin >/dev/null || exit 91
            cp "$MP/v/records.medvault.keyring" "$OUT/keyring.before"
            avail=$(df --output=avail -B1 "$MP" | tail -n 1)
            dd if=/dev/zero of="$MP/filler" bs=65536 count=$(( (avail - 1048576) / 65536 )) 2>/dev/null
            printf '%s\\n' "$PW" | "$MV" rotate-key "$MP/v" --password-stdin >"$OUT/rotate.out" 2>"$OUT/rotate.err"
            echo "ROTATE-STATUS $?"
            ls -a "$MP/v"
            # The key material: all but the audit record and checksum (137 + 32 bytes) that follow it.
            head -c -169 "$MP/v/records.medvault.keyring" >"$OUT/keys.after"
            head -c -169 "$OUT/keyring.before" >"$OUT/keys.before"
            cmp -s "$OUT/keys.after" "$OUT/keys.before" && echo "KEYRING-UNCHANGED"
            printf '%s\\n' "$PW" | "$MV" info "$MP/v" --password-stdin >/dev/null 2>"$OUT/info.err"
            echo "INFO-STATUS $?"
            """, scratch: scratch, environment: ["PW": CLIHarness.password, "MEDVAULT_TEST_FAST_KDF": "1"])
        // Status 8 (failure), with the reason on standard error.
        #expect(lines.contains("ROTATE-STATUS 8"), "\(text)")
        let error = (try? String(contentsOf: scratch.file("rotate.err"), encoding: .utf8)) ?? ""
        #expect(error.contains("free space"), "\(error)")
        #expect(error.contains("MiB"), "\(error)")
        // Nothing left behind, the keyring untouched, the vault still opens.
        #expect(!lines.contains { $0.hasSuffix(".rekey") || $0.hasSuffix(".tmp") }, "\(text)")
        #expect(lines.contains("KEYRING-UNCHANGED"), "\(text)")
        #expect(lines.contains("INFO-STATUS 0"), "\(text)")
    }

    @Test("A disk that fills while the rotation's copy is written: diskFull that says so (not \"SQL logic error\"), nothing left behind, the vault opens with every record")
    func diskFillingDuringRotation() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        // The probe creates the vault, starts the rotation (room enough for its check),
        // and fills the disk at the copy's first progress report.
        let probe = try #require(StorageFixtures.productPath("CrashProbe"), "CrashProbe is built with the tests")
        let (text, lines) = try await Self.inPrivateTmpfs(size: "32m", """
            "$PROBE" rotate-filling-disk "$MP/v" "$MP/filler"
            echo "PROBE-STATUS $?"
            rm -f "$MP/filler"
            ls -a "$MP/v"
            printf 'probe\\n' | "$MV" info "$MP/v" --password-stdin 2>&1
            echo "INFO-STATUS $?"
            """, scratch: scratch, environment: ["PROBE": probe])
        #expect(lines.contains("PROBE-STATUS 0"), "\(text)")
        let failure = try #require(lines.first { $0.hasPrefix("error ") || $0 == "rotated" }, "\(text)")
        #expect(failure.hasPrefix("error diskFull: the disk filled while the re-encrypted copy was written"), "\(failure)")
        #expect(failure.contains("free space and try again"), "\(failure)")
        #expect(!lines.contains { $0.hasSuffix(".rekey") || $0.contains(".rekey-") || $0.hasSuffix(".tmp") }, "\(text)")
        #expect(lines.contains("INFO-STATUS 0"), "\(text)")
        #expect(text.contains("2000"), "the vault lost records: \(text)")
    }
}
