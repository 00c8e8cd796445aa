import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync
import MedVaultSyncWire
import Testing

/// Issue #31's join acceptance through the real server: a join with neither an approving
/// device nor the recovery kit is refused, an approved join clones everything, a refused
/// one enrols nothing.
@Suite("Sync pairing through the server", .timeLimit(.minutes(3)))
struct SyncPairingEndToEndTests {
    static let options = Vault.Options(kdf: .fastForTestsOnly,
                                       passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))

    @Test("Approved: both screens show the same digits, the new device joins with the password and clones every record; refused: it enrols nothing; the password alone joins nothing")
    func approvedAndRefusedJoins() async throws {
        try await EngineDevices.with { devices in try await TestServer.with { server in
            let transport = try makeTransport(server.baseURL)
            let a = try await devices.register(transport)
            for marker in ["Uno", "Dos"] { _ = try await EngineRecords.add(to: a.vault, marker: marker) }
            _ = try await a.engine.sync()
            let password = try Password(EngineDevices.password)

            // Refused: the new device learns it, nothing is enrolled.
            let refused = try await SyncPairing.begin(transport: transport)
            try await a.engine.reject(try await a.engine.pairingRequest(code: refused.code))
            await #expect { _ = try await refused.approval() } throws: { ($0 as? MedVaultError)?.code == .cancelled }
            #expect(try await a.engine.devices().count == 1)

            // The password without the secret: the server's keyring does not open.
            let recovery = try await transport.recovery(vaultID: a.vault.vaultID)
            await #expect {
                _ = try await Vault.join(at: devices.folder.appendingPathComponent("guess"), keyring: recovery.keyring.keyring,
                                         syncSecret: SyncSecret.generate(), password: password, options: Self.options)
            } throws: { ($0 as? MedVaultError)?.code == .wrongSyncSecret }

            // Approved.
            let pairing = try await SyncPairing.begin(transport: transport)
            let request = try await a.engine.pairingRequest(code: try SyncPairingCode(parsing: pairing.code.formatted))
            #expect(request.authenticationString == pairing.authenticationString)
            try await a.engine.approve(request)
            let vault = try await pairing.join(at: devices.folder.appendingPathComponent("paired"), password: password,
                                               options: Self.options)
            let engine = SyncEngine(vault: vault, transport: transport)
            _ = try await engine.sync()
            #expect(try await vault.patients.count() == 2)
            #expect(try await a.engine.devices().map(\.isCertified) == [true, true])
            await vault.lock()
        } }
    }
}
