import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The chain's MACs (docs/audit.md, "The chain and its key") against values computed
/// outside MedVault: a trail written by any earlier version must verify unchanged.
@Suite("Audit trail: the chain's MACs")
struct AuditChainTests {
    static let vaultKeyBytes = (0..<32).map { UInt8($0) }
    static let vaultID = UUID(uuidString: "3f2a9c1e-0b7d-4e5f-9a8b-1c2d3e4f5a6b")!
    static let entity = UUID(uuidString: "00112233-4455-6677-8899-aabbccddeeff")!
    static let actor = UUID(uuidString: "ffeeddcc-bbaa-9988-7766-554433221100")!

    static func key() throws -> AuditKey {
        try AuditKey(vaultKey: SecureBytes(copying: vaultKeyBytes), vaultID: vaultID)
    }

    @Test("Known answers computed with Python's hmac/hashlib: a record entry, then an app entry with an actor")
    func knownAnswers() throws {
        let key = try Self.key()
        let genesis = try AuditChain.genesis(key)
        #expect(genesis.hexString == "966d90b27f6c4149701139031c9b68f226c645783e64ba0a577cd05955a7affc")
        let first = AuditChain.Columns(seq: 1, time: .integer(1_767_225_600_000), device: .integer(1), actor: .null,
                                       action: .integer(1), table: .integer(3), entityID: Self.entity.vaultValue)
        let mac1 = try AuditChain.mac(key, previous: genesis, first)
        #expect(mac1.hexString == "b8a2a039e2bc8678cbf2e8a72bea37378cfed7205d9e35b786602f4b28f9744a")
        let second = AuditChain.Columns(seq: 2, time: .integer(1_767_225_600_001), device: .integer(1),
                                        actor: Self.actor.vaultValue, action: .text("archive"),
                                        table: .text("app_note"), entityID: .null)
        #expect(try AuditChain.mac(key, previous: mac1, second).hexString
                == "dc0f21915439a60ee0618f10f5a06f9ea05cd179a6284fc5fc370f99162f61a4")
        // The reused buffer of the writer and the verifier gives the same MACs.
        var message = AuditChain.Message()
        let reused1 = try message.mac(key, previous: genesis, first)
        #expect([UInt8](reused1) == mac1)
        #expect(try message.mac(key, previous: reused1, second).hexString
                == "dc0f21915439a60ee0618f10f5a06f9ea05cd179a6284fc5fc370f99162f61a4")
    }

    @Test("One reused message buffer over entries of every shape equals Python's HMAC of previous ‖ bytes")
    func reusedBufferMatchesStraightforwardHMAC() async throws {
        let key = try Self.key()
        let derived = try await CryptoReference.answer(.hkdf(
            inputKeyMaterial: Self.vaultKeyBytes, salt: withUnsafeBytes(of: Self.vaultID.uuid) { Array($0) },
            info: Array("MedVault audit trail key v1".utf8)))
        let values: [VaultValue] = [.null, .integer(0), .integer(-1), .integer(.max), .real(2.5), .text(""),
                                    .text("ñandú 🩺 " + String(repeating: "x", count: 300)), .blob(Data()),
                                    .blob(Data((0..<200).map { UInt8($0) })), UUID().vaultValue]
        var message = AuditChain.Message()
        var previous = try AuditChain.genesis(key)
        var macs: [[UInt8]] = [], references: [[UInt8]] = []
        for seq in 1...200 {
            let columns = AuditChain.Columns(
                seq: Int64(seq), time: values[seq % values.count], device: .integer(Int64(seq)),
                actor: values[(seq / 3) % values.count], action: values[(seq * 7) % values.count],
                table: values[(seq * 3) % values.count], entityID: values[(seq / 2) % values.count])
            let mac = [UInt8](try message.mac(key, previous: previous, columns))
            #expect(try AuditChain.mac(key, previous: previous, columns) == mac, "entry \(seq)")
            references.append(previous + Self.reference(columns))
            macs.append(mac)
            previous = mac
        }
        let expected = try await CryptoReference.answers(references.map { .hmac(key: derived, message: $0) })
        for (index, mac) in macs.enumerated() {
            #expect(mac == expected[index], "entry \(index + 1)")
        }
    }

    /// docs/audit.md's `bytes`, written here independently of `AuditChain`.
    static func reference(_ columns: AuditChain.Columns) -> [UInt8] {
        func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
            (0..<count).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (count - 1 - $0))) }
        }
        func encode(_ value: VaultValue) -> [UInt8] {
            switch value {
            case .null: return [0]
            case .integer(let integer): return [1] + bigEndian(UInt64(bitPattern: integer), 8)
            case .text(let text): return [2] + bigEndian(UInt64(text.utf8.count), 4) + Array(text.utf8)
            case .blob(let data): return [3] + bigEndian(UInt64(data.count), 4) + Array(data)
            case .real(let real): return [4] + bigEndian(real.bitPattern, 8)
            }
        }
        return [.integer(columns.seq), columns.time, columns.device, columns.actor, columns.action, columns.table,
                columns.entityID].flatMap(encode)
    }
}

private extension Sequence<UInt8> {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
