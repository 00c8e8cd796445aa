import Foundation
import MedVaultCore
import MedVaultSyncWire
import Testing

/// The sync server's request and response bodies: their JSON names (docs/sync-server.md
/// documents them byte for byte), the signed message's layout and the size checks.
@Suite("Sync wire API")
struct SyncWireAPITests {
    static let vaultID = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!
    static let deviceID = UUID(uuidString: "FFEEDDCC-BBAA-9988-7766-554433221100")!

    @Test("The signed message is label ‖ challenge ‖ vault id ‖ device id, and the labels differ")
    func proofMessage() {
        let challenge = Data((0..<32).map { UInt8($0) })
        let message = SyncDeviceProof.message(.join, challenge: challenge, vaultID: Self.vaultID, deviceID: Self.deviceID)
        var expected = Data("MedVault sync join v1".utf8)
        expected.append(challenge)
        expected.append(contentsOf: [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                     0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])
        expected.append(contentsOf: [0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x99, 0x88,
                                     0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00])
        #expect(message == expected)
        let register = SyncDeviceProof.message(.register, challenge: challenge, vaultID: Self.vaultID,
                                               deviceID: Self.deviceID)
        #expect(register.prefix(25) == Data("MedVault sync register v1".utf8))
        #expect(register.suffix(64) == message.suffix(64))
    }

    @Test("A proof bound to an origin is the v2 label ‖ challenge ‖ ids ‖ origin length ‖ origin; origins are canonical")
    func originBoundMessage() throws {
        let challenge = Data((0..<32).map { UInt8($0) })
        let bound = SyncDeviceProof.message(.join, challenge: challenge, vaultID: Self.vaultID, deviceID: Self.deviceID,
                                            origin: "https://sync.example.org")
        let unbound = SyncDeviceProof.message(.join, challenge: challenge, vaultID: Self.vaultID, deviceID: Self.deviceID)
        var expected = Data("MedVault sync join v2".utf8)
        expected.append(unbound.dropFirst(21))
        expected.append(contentsOf: [0x00, 24])
        expected.append(Data("https://sync.example.org".utf8))
        #expect(bound == expected)
        #expect(bound != SyncDeviceProof.message(.join, challenge: challenge, vaultID: Self.vaultID,
                                                 deviceID: Self.deviceID, origin: "https://sync.example.net"))
        #expect(SyncDeviceProof.message(.register, challenge: challenge, vaultID: Self.vaultID, deviceID: Self.deviceID,
                                        origin: "https://sync.example.org").prefix(25) == Data("MedVault sync register v2".utf8))

        let cases: [(String, String?)] = [
            ("HTTPS://Sync.Example.ORG:443/v1/", "https://sync.example.org"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("http://localhost:80", "http://localhost"),
            ("https://sync.example.org:8443", "https://sync.example.org:8443"),
            ("ftp://sync.example.org", nil),
            ("file:///tmp/x", nil),
        ]
        for (text, origin) in cases {
            #expect(SyncDeviceProof.origin(of: try #require(URL(string: text))) == origin, "\(text)")
        }
        let signature = Data(repeating: 1, count: 64)
        for bad in ["", "https://sync example.org", String(repeating: "a", count: 256), "https://sÿnc.org"] {
            #expect(throws: SyncWireError(field: "origin", reason: "must be 1 to 255 visible ASCII characters")) {
                _ = try SyncJoinRequest(deviceID: Self.deviceID, challenge: challenge, signature: signature, origin: bad)
            }
        }
    }

    @Test("JSON names are the documented ones")
    func jsonNames() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let request = SyncChallengeRequest(vaultID: Self.vaultID, deviceID: Self.deviceID)
        #expect(String(decoding: try encoder.encode(request), as: UTF8.self)
            == #"{"deviceId":"FFEEDDCC-BBAA-9988-7766-554433221100","vaultId":"00112233-4455-6677-8899-AABBCCDDEEFF"}"#)
        let error = SyncErrorBody(error: .envelopeConflict, message: "m")
        #expect(String(decoding: try encoder.encode(error), as: UTF8.self)
            == #"{"error":"envelope_conflict","message":"m"}"#)
        let update = try SyncKeyringUpdate(expectedGeneration: 1,
                                           keyring: try SyncKeyringBlob(generation: 2, keyring: Data([1, 2, 3])))
        #expect(String(decoding: try encoder.encode(update), as: UTF8.self)
            == #"{"expectedGeneration":1,"keyring":{"generation":2,"keyring":"AQID"}}"#)
        let envelope = try SyncEnvelope(id: Self.vaultID, recordKey: Data(count: 32), ciphertext: Data(count: 28))
        let pulled = SyncPullResponse(envelopes: [SyncPulledEnvelope(sequence: 7, deviceID: Self.deviceID,
                                                                    envelope: envelope)],
                                      lastSequence: 7, hasMore: false)
        let json = String(decoding: try encoder.encode(pulled), as: UTF8.self)
        #expect(json.hasPrefix(#"{"envelopes":[{"deviceId":"FFEEDDCC-BBAA-9988-7766-554433221100","envelope":{"#))
        #expect(json.hasSuffix(#""sequence":7}],"hasMore":false,"lastSequence":7}"#))
        #expect(try JSONDecoder().decode(SyncPullResponse.self, from: Data(json.utf8)) == pulled)
    }

    @Test("Decoding checks every size and names the field")
    func sizes() throws {
        func decodeError<T: Decodable>(_ type: T.Type, _ json: String) -> SyncWireError? {
            do {
                _ = try JSONDecoder().decode(T.self, from: Data(json.utf8))
                return nil
            } catch let error as SyncWireError {
                return error
            } catch {
                Issue.record("not a SyncWireError: \(error)")
                return SyncWireError(field: "", reason: "")
            }
        }
        let b32 = Data(count: 32).base64EncodedString()
        let b64 = Data(count: 64).base64EncodedString()
        let id = Self.deviceID.uuidString
        #expect(decodeError(SyncJoinRequest.self, #"{"deviceId":"\#(id)","challenge":"AAAA","signature":"\#(b64)"}"#)?
            .field == "challenge")
        #expect(decodeError(SyncJoinRequest.self, #"{"deviceId":"\#(id)","challenge":"\#(b32)","signature":"\#(b32)"}"#)?
            .field == "signature")
        #expect(decodeError(SyncJoinRequest.self, #"{"deviceId":"\#(id)","challenge":"\#(b32)","signature":"\#(b64)"}"#)
            == nil)
        #expect(decodeError(SyncKeyringBlob.self, #"{"generation":-1,"keyring":"AA=="}"#)?.field == "generation")
        #expect(decodeError(SyncKeyringBlob.self, #"{"generation":1,"keyring":""}"#)?.field == "keyring")
        let tooLong = Data(count: SyncKeyringBlob.maximumLength + 1).base64EncodedString()
        #expect(decodeError(SyncKeyringBlob.self, #"{"generation":1,"keyring":"\#(tooLong)"}"#)?.field == "keyring")
        #expect(decodeError(SyncKeyringUpdate.self,
                            #"{"expectedGeneration":3,"keyring":{"generation":3,"keyring":"AA=="}}"#)?.field == "generation")
        #expect(decodeError(SyncChallenge.self, #"{"challenge":"AAAA","expiresInSeconds":1}"#)?.field == "challenge")
        #expect(decodeError(SyncRegisterRequest.self, """
            {"vaultId":"\(id)","deviceId":"\(id)","verificationKey":"\(b64)","keyring":{"generation":1,"keyring":"AA=="},
             "challenge":"\(b32)","signature":"\(b64)"}
            """)?.field == "verificationKey")
        #expect(SyncErrorCode(rawValue: "new_code").description == "new_code")
    }
}
