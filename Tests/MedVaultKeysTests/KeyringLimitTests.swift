import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("Keyring limits and proofs")
struct KeyringLimitTests {
    /// The keyring's bytes with its password slot's header replaced by one asking for
    /// `parameters`, and the SHA-256 checksum recomputed so only the limits can catch it.
    func tampered(_ keyring: Keyring, parameters: Argon2Parameters) throws -> [UInt8] {
        let slot = try #require(keyring.slots.first { $0.kind == .password })
        guard case .argon2id(_, let salt) = slot.derivation else { throw MedVaultError(.corrupted, reason: "no Argon2 slot") }
        let header = KeyringCodec.slotHeader(kind: slot.kind, id: slot.id, derivation: slot.derivation)
        let edited = KeyringCodec.slotHeader(kind: slot.kind, id: slot.id, derivation: .argon2id(parameters, salt: salt))
        #expect(header.count == edited.count)
        var body = Array(keyring.serialized().dropLast(KeyringCodec.checksumLength))
        let start = try #require((0...(body.count - header.count)).first { Array(body[$0..<($0 + header.count)]) == header })
        body.replaceSubrange(start..<(start + header.count), with: edited)
        return body + KeyringCodec.checksum(body)
    }

    @Test("a keyring edited to demand m = 4 GiB, t = 256 is refused before Argon2 runs (minutes of it)")
    func fourGiB() throws {
        let created = try makeKeyring()
        let greedy = try Argon2Parameters(memoryKiB: 4 << 20, iterations: 256, parallelism: 4)
        let bytes = try tampered(created.keyring, parameters: greedy)
        let url = try makeTemporaryDirectory().appendingPathComponent("vault.keyring")
        try Data(bytes).write(to: url)
        let started = ContinuousClock.now
        let error = #expect(throws: MedVaultError.self) {
            let keyring = try KeyringFile.read(at: url)
            _ = try keyring.unlock(password: Password("correct horse battery"))
        }
        // Argon2 at 4 GiB and 256 passes would take minutes; 10 s is a bound a loaded machine keeps.
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(error?.code == .corrupted)
        #expect(error?.reason == "keyring Argon2 parameters exceed the limits accepted on open")
    }

    @Test("each opening limit is enforced on decode", arguments: [
        (UInt32(1 << 20) + 1, UInt32(1), UInt32(1)),   // memory over 1 GiB
        (UInt32(64 << 10), UInt32(17), UInt32(1)),     // over 16 passes
        (UInt32(64 << 10), UInt32(1), UInt32(17)),     // over 16 lanes
        (UInt32(1 << 20), UInt32(5), UInt32(1)),       // 1 GiB x 5 > 4 GiB-pass
    ])
    func eachLimit(memory: UInt32, iterations: UInt32, lanes: UInt32) throws {
        let created = try makeKeyring()
        let parameters = try Argon2Parameters(memoryKiB: memory, iterations: iterations, parallelism: lanes)
        #expect(!parameters.isWithinOpeningLimits)
        let error = #expect(throws: MedVaultError.self) {
            _ = try Keyring(serialized: try tampered(created.keyring, parameters: parameters))
        }
        #expect(error?.code == .corrupted)
    }

    @Test("costs exactly at the limits still decode")
    func atTheLimits() throws {
        let created = try makeKeyring()
        let edge = try Argon2Parameters(memoryKiB: 1 << 20, iterations: 4, parallelism: 16)
        #expect(edge.isWithinOpeningLimits)
        let keyring = try Keyring(serialized: try tampered(created.keyring, parameters: edge))
        #expect(keyring.slots[0].argon2Parameters == edge)
    }

    @Test("a keyring with two password slots is corrupted on decode")
    func twoPasswordSlots() throws {
        let created = try makeKeyring()
        let second = try Keyring.makePasswordSlot(
            Password("another one"), kdf: .fastForTestsOnly, vaultID: created.keyring.vaultID, vaultKey: created.vaultKey
        )
        let keyring = try created.keyring.with(slots: created.keyring.slots + [second.slot], pending: .none,
                                               vaultKey: created.vaultKey)
        let error = #expect(throws: MedVaultError.self) { _ = try Keyring(serialized: keyring.serialized()) }
        #expect(error?.code == .corrupted)
        #expect(error?.reason == "keyring has more than one password slot")
    }

    @Test("a new slot above the opening limits is refused before any derivation")
    func newSlotAboveLimits() throws {
        let greedy = try Argon2Parameters(memoryKiB: 2 << 20, iterations: 1, parallelism: 4)
        let started = ContinuousClock.now
        let error = #expect(throws: MedVaultError.self) {
            _ = try Keyring.create(password: Password("correct horse battery"), kdf: greedy)
        }
        #expect(error?.code == .invalidArgument)
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    // MARK: - Proofs

    @Test("the proof refuses a slot sealed around a zero vault key")
    func proofRefusesZeroKeySlot() throws {
        let created = try makeKeyring()
        let zero = SecureBytes(copying: [UInt8](repeating: 0, count: 32))
        let kek = try KeyWrap.key(SecureBytes.random(count: 32))
        let id = UUID()
        let bad = try Keyring.makeSlot(kind: .platform, derivation: .storedSecret(account: "zero"), kek: kek,
                                       vaultID: created.keyring.vaultID, vaultKey: zero, id: id)
        // Tagged with the right vault key: only the proof's re-open catches the bad slot.
        let keyring = try created.keyring.with(slots: created.keyring.slots + [bad], pending: .none,
                                               vaultKey: created.vaultKey)
        let error = #expect(throws: MedVaultError.self) {
            _ = try keyring.proveSound(vaultKey: created.vaultKey, newSlot: Keyring.SlotProof(id: id, kek: kek))
        }
        #expect(error?.code == .corrupted)
    }

    @Test("the proof refuses a keyring assembled under a wrong vault key")
    func proofRefusesWrongVaultKey() throws {
        let created = try makeKeyring()
        let zero = SecureBytes(copying: [UInt8](repeating: 0, count: 32))
        let keyring = try created.keyring.with(pending: .none, vaultKey: zero)
        let error = #expect(throws: MedVaultError.self) { _ = try keyring.proveSound(vaultKey: created.vaultKey) }
        #expect(error?.code == .corrupted)
        #expect(try created.keyring.proveSound(vaultKey: created.vaultKey) == created.keyring)
    }

    @Test("mutations with a wiped vault key throw locked and build nothing")
    func wipedVaultKey() async throws {
        let created = try makeKeyring()
        let vaultKey = try created.vaultKey.copy()
        vaultKey.wipe()
        let store = InMemorySecretStore()
        let codes: [MedVaultError.Code?] = [
            codeOf { _ = try created.keyring.replacingPassword(Password("new"), vaultKey: vaultKey, kdf: .fastForTestsOnly) },
            codeOf { _ = try created.keyring.regeneratingRecoveryKey(vaultKey: vaultKey) },
            codeOf { _ = try created.keyring.beginningRotation(vaultKey: vaultKey) },
            await asyncCodeOf { _ = try await created.keyring.addingPlatformSlot(store: store, account: "a", vaultKey: vaultKey) },
        ]
        #expect(codes == [.locked, .locked, .locked, .locked])
        #expect(try await store.load(account: "a") == nil)
    }

    func codeOf(_ body: () throws -> Void) -> MedVaultError.Code? {
        do { try body(); return nil } catch { return (error as? MedVaultError)?.code }
    }

    func asyncCodeOf(_ body: () async throws -> Void) async -> MedVaultError.Code? {
        do { try await body(); return nil } catch { return (error as? MedVaultError)?.code }
    }
}
