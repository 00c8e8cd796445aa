import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// Issue #31, item 2: a new device joins when an enrolled one approves it, after both
/// screens show the same digits; a refusal, a substituted key or a forged answer enrols
/// nothing.
@Suite("Sync pairing: approved joins", .timeLimit(.minutes(2)))
struct SyncPairingTests {
    @Test("An approved join: the code travels screen to screen, both show the same digits, the new device joins with the password and clones everything")
    func approvedJoinClonesEverything() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            for name in ["Uno", "Dos", "Tres"] {
                _ = try await devices.vaults[0].patients.create(ClinicalFixtures.patient(name, "Ruiz"))
            }
            _ = try await devices.engines[0].sync()

            let pairing = try await SyncPairing.begin(transport: devices.server)
            #expect(try await pairing.approval() == nil)
            let typed = try SyncPairingCode(parsing: pairing.code.formatted.lowercased())
            let request = try await devices.engines[0].pairingRequest(code: typed)
            #expect(request.authenticationString == pairing.authenticationString)
            #expect(request.authenticationString.count == 6 && request.authenticationString.allSatisfy(\.isNumber))
            try await devices.engines[0].approve(request)
            let vault = try await pairing.join(at: dir.file("new"), password: try VaultFixtures.password(),
                                               options: VaultFixtures.options)
            defer { Task { await vault.lock() } }
            let engine = SyncEngine(vault: vault, transport: devices.server)
            _ = try await engine.sync()
            #expect(try await vault.patients.count() == 3)
            #expect(try await engine.syncSecret() == (try await devices.engines[0].syncSecret()))
            #expect(try await devices.engines[0].devices().map(\.isCertified) == [true, true])
            // Answered once.
            await expectMedVaultError(.conflict) { try await devices.engines[0].approve(request) }
        }
    }

    @Test("Digits that differ (the code of another new device was typed): the user refuses, that device learns it and enrols nothing, the one on screen is untouched")
    func refusedPairingEnrolsNothing() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let onScreen = try await SyncPairing.begin(transport: devices.server)
            let other = try await SyncPairing.begin(transport: devices.server)
            let request = try await devices.engines[0].pairingRequest(code: other.code)
            #expect(request.authenticationString != onScreen.authenticationString)
            try await devices.engines[0].reject(request)
            await expectMedVaultError(.cancelled) { try await other.approval() }
            await expectMedVaultError(.cancelled) {
                try await other.join(at: dir.file("other"), password: try VaultFixtures.password(), options: VaultFixtures.options)
            }
            #expect(!FileManager.default.fileExists(atPath: dir.file("other").path))
            #expect(try await onScreen.approval() == nil)
            await expectMedVaultError(.invalidArgument) {
                try await onScreen.join(at: dir.file("screen"), password: try VaultFixtures.password(), options: VaultFixtures.options)
            }
            #expect(try await devices.engines[0].devices().count == 1)
            // A code no device showed (mistyped past its checksum, or expired): not found.
            await expectMedVaultError(.notFound) { try await devices.engines[0].pairingRequest(code: SyncPairingCode.generate()) }
        }
    }

    @Test("A server that puts its own key in the request is caught by the approving device; an answer it forges is caught by the new one")
    func substitutedKeyAndForgedAnswerAreRefused() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            let devices = try await SyncDevices.make(1, in: dir, server: server)
            defer { Task { await devices.lockAll() } }
            let hostile = PairingForgingTransport(inner: server)
            let pairing = try await SyncPairing.begin(transport: hostile)
            await hostile.substituteKeys()
            let approver = SyncEngine(vault: devices.vaults[0], transport: hostile)
            await expectMedVaultError(.corrupted) { try await approver.pairingRequest(code: pairing.code) }
            await hostile.stopSubstituting()

            // The server answers in the enrolled device's place, with its own secret.
            try await hostile.forgeAnswer(for: try pairing.code.pairingID())
            await expectMedVaultError(.corrupted) { try await pairing.approval() }
            #expect(try await devices.engines[0].devices().count == 1)
        }
    }

    @Test("An approval whose answer was lost and is sent again finds its own answer stored: approved, and the new device joins")
    func retriedApprovalSucceeds() async throws {
        try await withTemporaryDirectory { dir in
            let server = InMemorySyncTransport()
            let devices = try await SyncDevices.make(1, in: dir, server: server)
            defer { Task { await devices.lockAll() } }
            let pairing = try await SyncPairing.begin(transport: server)
            let approver = SyncEngine(vault: devices.vaults[0], transport: RetriedAnswerTransport(inner: server))
            try await approver.approve(try await approver.pairingRequest(code: pairing.code))
            let vault = try await pairing.join(at: dir.file("new"), password: try VaultFixtures.password(),
                                               options: VaultFixtures.options)
            await vault.lock()
        }
    }

    @Test("A pairing code is not a sync secret: one typed where the other is asked for fails its checksum")
    func codesAreNotSecrets() async throws {
        let code = SyncPairingCode.generate()
        await expectMedVaultError(.invalidArgument, field: "syncSecret") { try SyncSecret(parsing: code.formatted) }
        await expectMedVaultError(.invalidArgument, field: "pairingCode") {
            try SyncPairingCode(parsing: SyncSecret.generate().formatted)
        }
        #expect(try SyncPairingCode(parsing: code.formatted) == code)
        #expect(!"\(code)".contains(code.formatted))
    }
}

/// A hostile server for pairings: swaps the new device's key in what it serves, or
/// answers a pairing itself.
actor PairingForgingTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport
    private var substitutes = false

    init(inner: InMemorySyncTransport) { self.inner = inner }

    func substituteKeys() { substitutes = true }
    func stopSubstituting() { substitutes = false }

    func forgeAnswer(for id: UUID) async throws {
        let state = try await inner.pairing(id: id)
        let payload = try SyncPairing.payload(vaultID: UUID(), secret: SyncSecret.generate())
        let sealed = Data(try SyncDeviceKey.seal(payload, to: Array(state.request.boxKey)))
        await inner.setPairing(SyncPairingState(request: state.request,
                                                approval: try SyncPairingApproval(sealed: sealed, mac: Data(count: 32))))
    }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try await inner.pull(after: after, limit: limit, as: credentials)
    }

    func pairing(id: UUID) async throws -> SyncPairingState {
        let state = try await inner.pairing(id: id)
        guard substitutes else { return state }
        let own = Data(try SyncDeviceKey.generate().boxPublicKey())
        return SyncPairingState(request: try SyncPairingRequest(pairingID: id, boxKey: own, mac: state.request.mac),
                                approval: state.approval)
    }
}

extension InMemorySyncTransport {
    /// Sets a pairing's state as a hostile operator would.
    func setPairing(_ state: SyncPairingState) {
        pairings[state.request.pairingID] = state
    }
}

/// A connection that stores an answer and loses the reply: the transport's retry then
/// meets the stored answer (`conflict`).
actor RetriedAnswerTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport

    init(inner: InMemorySyncTransport) { self.inner = inner }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try await inner.pull(after: after, limit: limit, as: credentials)
    }

    func answerPairing(id: UUID, _ approval: SyncPairingApproval, as credentials: SyncCredentials) async throws {
        try await inner.answerPairing(id: id, approval, as: credentials)
        try await inner.answerPairing(id: id, approval, as: credentials)
    }
}
