import CArgon2
import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("Argon2id")
struct Argon2idTests {
    @Test("RFC 9106 §5.3 Argon2id vector through the Swift wrapper")
    func rfc9106Vector() throws {
        let parameters = try Argon2Parameters(memoryKiB: 32, iterations: 3, parallelism: 4, saltLength: 16, outputLength: 32)
        let tag = try Argon2id.deriveKey(
            password: SecureBytes(copying: [UInt8](repeating: 0x01, count: 32)),
            salt: [UInt8](repeating: 0x02, count: 16),
            parameters: parameters,
            secret: SecureBytes(copying: [UInt8](repeating: 0x03, count: 8)),
            associatedData: [UInt8](repeating: 0x04, count: 12)
        )
        #expect(hex(bytes(of: tag)) == "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")
    }

    @Test("matches a bare libargon2 call without secret or associated data")
    func matchesBareLibrary() throws {
        let salt = [UInt8](repeating: 7, count: 16)
        let password = Array("hunter2".utf8)
        let ours = try Argon2id.deriveKey(password: SecureBytes(copying: password), salt: salt, parameters: .fastForTestsOnly)
        var theirs = [UInt8](repeating: 0, count: 32)
        let status = argon2id_hash_raw(1, 8, 1, password, password.count, salt, salt.count, &theirs, 32)
        #expect(status == 0)
        #expect(bytes(of: ours) == theirs)
    }

    @Test("defaults are RFC 9106's second recommendation")
    func defaults() {
        let defaults = Argon2Parameters.default
        #expect(defaults.memoryKiB == 65_536 && defaults.iterations == 3 && defaults.parallelism == 4)
        #expect(defaults.saltLength == 16 && defaults.outputLength == 32)
        #expect(defaults.meetsProductionFloor && !defaults.isForTestsOnly)
        #expect(Argon2Parameters.fastForTestsOnly.isForTestsOnly)
        #expect(!Argon2Parameters.fastForTestsOnly.meetsProductionFloor)
    }

    @Test("out-of-range parameters are refused with invalidArgument, never clamped",
          arguments: [
              (UInt32(8), UInt32(1), UInt32(0), 16, 32),       // no lanes
              (UInt32(8), UInt32(1), UInt32(65), 16, 32),      // too many lanes
              (UInt32(7), UInt32(1), UInt32(1), 16, 32),       // below libargon2's 8 KiB per lane
              (UInt32(16), UInt32(1), UInt32(4), 16, 32),      // 4 KiB per lane
              (UInt32(4 * 1024 * 1024 + 1), UInt32(1), UInt32(1), 16, 32),
              (UInt32(8), UInt32(0), UInt32(1), 16, 32),       // no pass
              (UInt32(8), UInt32(257), UInt32(1), 16, 32),
              (UInt32(8), UInt32(1), UInt32(1), 8, 32),        // salt too short
              (UInt32(8), UInt32(1), UInt32(1), 65, 32),
              (UInt32(8), UInt32(1), UInt32(1), 16, 8),        // output too short
              (UInt32(8), UInt32(1), UInt32(1), 16, 65),
          ])
    func bounds(memory: UInt32, iterations: UInt32, parallelism: UInt32, salt: Int, output: Int) {
        #expect {
            _ = try Argon2Parameters(memoryKiB: memory, iterations: iterations, parallelism: parallelism,
                                     saltLength: salt, outputLength: output)
        } throws: { error in
            (error as? MedVaultError)?.code == .invalidArgument && (error as? MedVaultError)?.field == "kdf"
        }
    }

    @Test("a salt of the wrong length is refused")
    func saltLengthMismatch() {
        #expect(throws: MedVaultError(.invalidArgument, field: "salt", reason: "salt length does not match the Argon2 parameters")) {
            _ = try Argon2id.deriveKey(password: SecureBytes(copying: [1]), salt: [1, 2, 3], parameters: .fastForTestsOnly)
        }
    }

    @Test("weak parameters cannot protect a new slot unless marked for tests")
    func productionFloor() throws {
        let weak = try Argon2Parameters(memoryKiB: 1024, iterations: 1, parallelism: 1)
        #expect(!weak.isForTestsOnly)
        #expect(throws: MedVaultError.self) { _ = try Keyring.create(password: Password("pw"), kdf: weak) }
        let marked = try Argon2Parameters.forTestsOnly(memoryKiB: 1024, iterations: 1, parallelism: 1)
        #expect(marked == weak)
        _ = try Keyring.create(password: Password("pw"), kdf: marked)
        let longOutput = try Argon2Parameters(memoryKiB: 65_536, iterations: 3, parallelism: 4, outputLength: 64)
        #expect(throws: MedVaultError.self) { _ = try Keyring.create(password: Password("pw"), kdf: longOutput) }
    }

    @Test("calibration returns checked parameters at or above the floor")
    func calibration() throws {
        let parameters = try Argon2Parameters.calibrated(targetDuration: .milliseconds(20), memoryKiB: 8_192, parallelism: 1)
        #expect(parameters.memoryKiB == Argon2Parameters.productionFloor.memoryKiB)
        #expect(parameters.meetsProductionFloor)
        #expect(parameters.parallelism == 1)
        #expect(throws: MedVaultError.self) { _ = try Argon2Parameters.calibrated(targetDuration: .zero) }
    }
}
