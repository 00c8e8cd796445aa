import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Refused envelopes are kept in the vault until the app dismisses them, and a pull page
/// that would move the cursor back or past unsent envelopes is refused whole.
@Suite("Sync: refused envelopes are kept; out-of-order pull pages are refused")
struct SyncRefusedEnvelopeTests {
    /// Flips one bit in the middle of envelope `sequence` of `vault`'s server copy.
    static func flipBit(in devices: SyncDevices, sequence: Int64) async throws {
        try await devices.server.tamper(vaultID: devices.vaults[0].vaultID, sequence: sequence) { ciphertext in
            var bytes = ciphertext
            bytes[bytes.count / 2] ^= 0x10
            return bytes
        }
    }

    static func cursor(_ vault: Vault) async throws -> Int64 {
        try await vault.database.read { db in try SyncStateStore.state(db).pulledThrough }
    }

    @Test("A refused envelope is listed after the sync, by another engine and after a reopen, until dismissed")
    func keptUntilDismissed() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            for name in ["Ana", "Luis", "Eva"] {
                _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient(name, "Ruiz"))
            }
            _ = try await devices.engines[0].sync()
            try await Self.flipBit(in: devices, sequence: 2)
            let result = try await devices.engines[1].sync()
            #expect(result.errors.map(\.sequence) == [2])
            #expect(try await devices.engines[1].refusedEnvelopes() == result.errors)

            // Kept in the file, not in the engine: a reopened vault lists it.
            await devices.lockAll()
            let reopened = try await Vault.open(at: dir.file("device-1"), password: try VaultFixtures.password(),
                                                options: VaultFixtures.options)
            defer { Task { await reopened.lock() } }
            let engine = SyncEngine(vault: reopened, transport: devices.server)
            let kept = try await engine.refusedEnvelopes()
            #expect(kept == result.errors)
            #expect(kept.first?.code == .corrupted && kept.first?.envelopeID == result.errors.first?.envelopeID)

            // Bad input changes nothing; a sequence before it forgets nothing.
            let negative = await SyncFixtures.errorCode { _ = try await engine.dismissRefusedEnvelopes(through: -1) }
            #expect(negative == .invalidArgument)
            #expect(try await engine.dismissRefusedEnvelopes(through: 1) == 0)
            #expect(try await engine.refusedEnvelopes() == kept)
            #expect(try await engine.dismissRefusedEnvelopes(through: 2) == 1)
            #expect(try await engine.refusedEnvelopes().isEmpty)
            // The next sync does not refuse it again: the cursor is past it.
            #expect(try await engine.sync().errors.isEmpty)
            #expect(try await engine.refusedEnvelopes().isEmpty)
        }
    }

    @Test("A sync that throws after the group holding a refused envelope committed still leaves the refusal listed")
    func keptWhenALaterStepThrows() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncPullPipelineTests.devicesWithEightRecords(in: dir, named: { "K\($0)" })
            defer { Task { await devices.lockAll() } }
            try await Self.flipBit(in: devices, sequence: 2)
            // Pulls 1 and 2 make the first group (envelopes 1–6); pull 3, the pull
            // ahead, fails once that group is committed.
            let transport = ScriptedPullTransport(devices.server, failingPull: 3)
            let engine = SyncEngine(vault: devices.vaults[1], transport: transport, batchSize: 3, envelopesPerApply: 6)
            let code = await SyncFixtures.errorCode { _ = try await engine.sync() }
            #expect(code == .offline)
            #expect(try await Self.cursor(devices.vaults[1]) == 6)
            let kept = try await engine.refusedEnvelopes()
            #expect(kept.map(\.sequence) == [2] && kept.map(\.code) == [.corrupted])
            // The sync that resumes does not report it (the cursor is past it); the list still does.
            let resumed = try await engine.sync()
            #expect(resumed.errors.isEmpty)
            #expect(try await engine.refusedEnvelopes() == kept)
        }
    }

    @Test("The vault keeps the most recent refusals, and a sequence refused again replaces its row")
    func boundedAndReplaced() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let vault = devices.vaults[0]
            func refusal(_ sequence: Int64, _ code: MedVaultError.Code) -> SyncEnvelopeError {
                SyncEnvelopeError(sequence: sequence, envelopeID: UUID(), code: code, reason: "test")
            }
            let first = (1...5).map { refusal($0, .corrupted) }
            try await vault.database.write { db in
                try SyncStateStore.recordRefused(first, at: Date(), keeping: 3, db)
            }
            #expect(try await devices.engines[0].refusedEnvelopes() == Array(first.suffix(3)))
            let again = refusal(4, .invalidArgument)
            try await vault.database.write { db in
                try SyncStateStore.recordRefused([again], at: Date(), keeping: 3, db)
            }
            #expect(try await devices.engines[0].refusedEnvelopes() == [first[2], again, first[4]])
        }
    }

    @Test("A pull page that would move the cursor back or past envelopes it does not hold, or skip some, is refused: nothing applied",
          .timeLimit(.minutes(1)), arguments: [PageFault.replaysFromTheStart, .claimsMoreThanItHolds, .skipsAhead])
    func outOfOrderPage(fault: PageFault) async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncPullPipelineTests.devicesWithEightRecords(in: dir, named: { "O\($0)" })
            defer { Task { await devices.lockAll() } }
            let transport = FaultyPageTransport(devices.server, fault: fault)
            let engine = SyncEngine(vault: devices.vaults[1], transport: transport, batchSize: 3, envelopesPerApply: 6)
            let code = await SyncFixtures.errorCode { _ = try await engine.sync() }
            #expect(code == .badResponse)
            #expect(try await Self.cursor(devices.vaults[1]) == 0)
            #expect(try await devices.vaults[1].patients.count(filter: .all) == 0)
            // The honest server's pages go through.
            let result = try await SyncEngine(vault: devices.vaults[1], transport: devices.server).sync()
            #expect(result.errors.isEmpty)
            let exports = try await devices.exports()
            #expect(exports[0] == exports[1])
        }
    }
}

/// How ``FaultyPageTransport`` bends its pages.
enum PageFault: Sendable, CustomTestStringConvertible {
    /// The second pull (after the first page) answers with the first page again.
    case replaysFromTheStart
    /// The first page names a last sequence ten past its last envelope.
    case claimsMoreThanItHolds
    /// The first page leaves out its first envelope: it starts past the cursor + 1.
    case skipsAhead

    var testDescription: String {
        switch self {
        case .replaysFromTheStart: "a page starting at or before the cursor"
        case .claimsMoreThanItHolds: "a last sequence past the page's last envelope"
        case .skipsAhead: "a page starting after the cursor's next sequence"
        }
    }
}

/// A server whose pull pages are out of order, in one of the ``PageFault`` ways.
actor FaultyPageTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport
    private let fault: PageFault
    private var pulls = 0

    init(_ inner: InMemorySyncTransport, fault: PageFault) {
        self.inner = inner
        self.fault = fault
    }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        pulls += 1
        switch fault {
        case .replaysFromTheStart where pulls >= 2:
            return try await inner.pull(after: 0, limit: limit, as: credentials)
        case .claimsMoreThanItHolds where pulls == 1:
            let page = try await inner.pull(after: after, limit: limit, as: credentials)
            return SyncPullResponse(envelopes: page.envelopes, lastSequence: page.lastSequence + 10,
                                    hasMore: page.hasMore, signatures: page.signatures)
        case .skipsAhead where pulls == 1:
            let page = try await inner.pull(after: after, limit: limit, as: credentials)
            return SyncPullResponse(envelopes: Array(page.envelopes.dropFirst()), lastSequence: page.lastSequence,
                                    hasMore: page.hasMore, signatures: page.signatures)
        default:
            return try await inner.pull(after: after, limit: limit, as: credentials)
        }
    }
}
