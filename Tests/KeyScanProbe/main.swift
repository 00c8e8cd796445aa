// KeyScanProbe: a child process the key-hygiene test runs. It creates a vault, works with
// it (open, writes and their audit entries, reads, password change, new recovery key, a
// sync registration and a sync through the in-memory transport, a database-key rotation),
// locks it, drops every reference, and learns every key WITHOUT keeping a plain copy (each
// is stored XOR-masked with a random mask): the vault key, the database key before and
// after the rotation, the keys derived from the vault key (audit trail — and the inner and
// outer chaining values of the HMAC state the trail keeps instead of its key —, sync envelope,
// record key and device signing, keyring header MAC, the professional signing root and a
// session-signing professional's Ed25519 seed) and the slot-wrapping keys (the
// password slot's Argon2id KEK, the recovery slot's HKDF KEK). Then it scans its own
// readable-writable memory for every key: as 32 raw bytes and as the 64 hex digits of
// SQLCipher's `x'…'` literal.
//
// Output (stdout), one line: `<name>=<n> <name>Hex=<n>` for each key (names in
// ``keyNames``). Where a copy was found, its mapping is described on stderr.
//
// Usage: KeyScanProbe <empty folder> [--leak-for-self-check]
// With --leak-for-self-check the probe deliberately keeps a plain copy of every key but the
// vault key, and the database key's hex literal, alive during the scan: the test checks
// that the scan finds them, so a scan that cannot see anything cannot pass for a clean
// process.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MedVault
import MedVaultCore
@testable import MedVaultKeys
import MedVaultSync
import CSodium

/// A key known only as `masked = key ^ mask`: no plain copy of the key exists in this
/// process because of the probe itself, so every hit is a copy MedVault (or a library
/// under it) left behind.
struct MaskedKey {
    let name: String
    let masked: [UInt8]
    let mask: [UInt8]

    /// Masks `secret` and wipes it.
    init(name: String, _ secret: SecureBytes) throws {
        var generator = SystemRandomNumberGenerator()
        let mask = (0..<32).map { _ in UInt8.random(in: 1...255, using: &generator) }
        self.name = name
        self.mask = mask
        self.masked = try secret.withUnsafeBytes { bytes in (0..<32).map { bytes[$0] ^ mask[$0] } }
        secret.wipe()
    }

    /// The key's byte `index`, computed into a register, never stored.
    @inline(__always) func byte(_ index: Int) -> UInt8 { masked[index] ^ mask[index] }

    /// Whether the 32 bytes at `pointer` are the key.
    func matchesRaw(_ pointer: UnsafePointer<UInt8>) -> Bool {
        for index in 0..<32 where pointer[index] != byte(index) { return false }
        return true
    }

    /// Whether the 64 characters at `pointer` are the key in hex (either case).
    func matchesHex(_ pointer: UnsafePointer<UInt8>) -> Bool {
        for index in 0..<32 {
            let value = byte(index)
            guard Self.hexValue(pointer[2 * index]) == value >> 4,
                  Self.hexValue(pointer[2 * index + 1]) == value & 0x0F else { return false }
        }
        return true
    }

    /// The first hex digit of the key, lower and upper case (for memchr).
    var firstHexDigits: [UInt8] {
        let digit = Int(byte(0) >> 4)
        return [Array("0123456789abcdef".utf8)[digit], Array("0123456789ABCDEF".utf8)[digit]]
    }

    static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// One line of /proc/self/maps that is readable and writable.
struct Mapping {
    let start: UInt
    let end: UInt
    let description: String
}

func writableMappings() -> [Mapping] {
    guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps"), let data = try? handle.readToEnd() else { return [] }
    try? handle.close()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 2, fields[1].hasPrefix("rw") else { return nil }
        let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
        guard bounds.count == 2 else { return nil }
        let name = fields.count >= 6 ? fields[5...].joined(separator: " ") : "[anonymous]"
        if name == "[vvar]" || name == "[vsyscall]" { return nil }
        return Mapping(start: bounds[0], end: bounds[1], description: "\(fields[0]) \(name)")
    }
}

/// Counts each key's copies in every readable-writable mapping, reading through
/// /proc/self/mem into a private mmap'ed buffer that the scan skips.
func scan(_ keys: [MaskedKey]) -> (raw: [Int], hex: [Int]) {
    var raw = [Int](repeating: 0, count: keys.count)
    var hex = [Int](repeating: 0, count: keys.count)
    let chunk = 1 << 20
    let overlap = 128
    guard let buffer = mmap(nil, chunk + overlap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
          buffer != UnsafeMutableRawPointer(bitPattern: -1) else { return (raw, hex) }
    let bufferStart = UInt(bitPattern: buffer)
    let memory = open("/proc/self/mem", O_RDONLY)
    guard memory >= 0 else {
        FileHandle.standardError.write(Data("cannot open /proc/self/mem\n".utf8))
        return (raw, hex)
    }
    defer { close(memory) }
    let bytes = buffer.assumingMemoryBound(to: UInt8.self)
    let mappings = writableMappings()
    for mapping in mappings where !(mapping.start..<mapping.end).contains(bufferStart) {
        var address = mapping.start
        while address < mapping.end {
            let wanted = Int(min(UInt(chunk + overlap), mapping.end - address))
            let got = pread(memory, buffer, wanted, off_t(Int64(bitPattern: UInt64(address))))
            if got <= 0 { address += UInt(chunk); continue }
            let length = Int(got)
            // Positions whose match starts in this chunk (the overlap belongs to the next).
            let starts = min(length, chunk)
            for (index, key) in keys.enumerated() {
                var hits = count(in: bytes, length: length, starts: starts, first: [key.byte(0)], width: 32) {
                    key.matchesRaw($0)
                }
                if hits > 0 { report(key.name, "raw", mapping) }
                raw[index] += hits
                hits = count(in: bytes, length: length, starts: starts, first: key.firstHexDigits, width: 64) {
                    key.matchesHex($0)
                }
                if hits > 0 { report(key.name, "hex", mapping) }
                hex[index] += hits
            }
            address += UInt(chunk)
        }
    }
    memset(buffer, 0, chunk + overlap)
    munmap(buffer, chunk + overlap)
    return (raw, hex)
}

func count(in bytes: UnsafeMutablePointer<UInt8>, length: Int, starts: Int, first: [UInt8], width: Int,
           matches: (UnsafePointer<UInt8>) -> Bool) -> Int {
    var hits = 0
    for byte in first {
        var offset = 0
        while offset < starts, let found = memchr(bytes + offset, Int32(byte), starts - offset) {
            let position = found.assumingMemoryBound(to: UInt8.self) - bytes
            if position + width <= length, matches(UnsafePointer(bytes + position)) { hits += 1 }
            offset = position + 1
        }
    }
    return hits
}

func report(_ name: String, _ form: String, _ mapping: Mapping) {
    FileHandle.standardError.write(Data("found \(name) (\(form)) in \(mapping.description)\n".utf8))
}

// MARK: - The work

let arguments = CommandLine.arguments
guard arguments.count == 2 || (arguments.count == 3 && arguments[2] == "--leak-for-self-check") else {
    FileHandle.standardError.write(Data("usage: KeyScanProbe <empty folder> [--leak-for-self-check]\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[1])
let leaksForSelfCheck = arguments.count == 3
let options = Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))

/// A key derived from the vault key as docs/keyring-format.md, docs/audit.md and
/// docs/sync.md specify: HKDF-SHA256 with the vault id as salt, into secure memory.
func derived(_ vaultKey: SecureBytes, vaultID: UUID, label: String) throws -> SecureBytes {
    let salt = withUnsafeBytes(of: vaultID.uuid) { Array($0) }
    return try vaultKey.withUnsafeBytes { ikm in
        SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt, info: Array(label.utf8))
    }
}

func work() async throws -> [MaskedKey] {
    let first = try Password("first password")
    let created = try await Vault.create(at: folder, password: first, options: options)
    let vaultID = created.vault.vaultID
    await created.vault.lock()

    let vault = try await Vault.open(at: folder, password: first, options: options)
    for index in 0..<5 {
        _ = try await vault.patients.create(Patient(firstName: "Ana \(index)", lastName: "Núñez",
                                                    dateOfBirth: try CalendarDate(iso8601: "1984-03-07")))
    }
    _ = try await vault.patients.list()
    let professional = try await vault.professional.save(Professional(fullName: "Dra. Ana Ruiz", licenseNumber: "M-1",
                                                                        specialty: "Psiquiatría"))
    let patient = try await vault.patients.create(Patient(firstName: "Eva", lastName: "Sola",
                                                          dateOfBirth: try CalendarDate(iso8601: "1990-01-01")))
    let session = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: Date(), notes: "n"))
    _ = try await vault.sessions.sign(session.id, version: session.version)
    _ = try await vault.sessions.verifySignature(of: session.id)
    let second = try Password("second password")
    try await vault.changePassword(from: first, to: second)
    let recoveryKey = try await vault.regenerateRecoveryKey()
    _ = try await vault.patients.list()
    let engine = SyncEngine(vault: vault, transport: InMemorySyncTransport())
    try await engine.register()
    _ = try await engine.sync()
    _ = try await vault.audit.verify()
    await vault.lock()

    // The database key before the rotation, from a copy of the keyring taken now.
    let beforeRotation = try KeyringFile.read(at: VaultLayout(folder: folder).keyring)
    let reopened = try await Vault.open(at: folder, password: second, options: options)
    _ = try await reopened.patients.list()
    try await reopened.rotateDatabaseKey()
    _ = try await reopened.patients.list()
    await reopened.lock()

    // Learn the keys from the keyrings, masked at once.
    let vaultKey = try beforeRotation.unlock(password: second)
    defer { vaultKey.wipe() }
    var keys = [try MaskedKey(name: "databaseKey", try beforeRotation.databaseKey(vaultKey: vaultKey))]
    let rotated = try KeyringFile.read(at: VaultLayout(folder: folder).keyring)
    keys.append(try MaskedKey(name: "rotatedKey", try rotated.databaseKey(vaultKey: vaultKey)))
    for (name, label) in [("auditKey", "MedVault audit trail key v1"), ("syncEnvelopeKey", "MedVault sync envelope key v1"),
                          ("syncRecordKey", "MedVault sync record key v1"),
                          ("syncDeviceSigningKey", "MedVault sync device signing key v1"),
                          ("headerMACKey", "MedVault keyring MAC v1")] {
        keys.append(try MaskedKey(name: name, try derived(vaultKey, vaultID: vaultID, label: label)))
    }
    // What the audit trail keeps from unlock to lock instead of its key: libsodium's keyed
    // HMAC state, whose inner and outer SHA-256 chaining values (the first 32 bytes of each
    // half) let anyone MAC entries.
    let auditKey = try derived(vaultKey, vaultID: vaultID, label: "MedVault audit trail key v1")
    let halfLength = MemoryLayout<crypto_hash_sha256_state>.size
    let hmacState = SecureBytes(count: MemoryLayout<crypto_auth_hmacsha256_state>.size) { _ in }
    try hmacState.withFreshMutableBytes { state in
        try auditKey.withUnsafeBytes { key in
            _ = crypto_auth_hmacsha256_init(
                state.baseAddress!.bindMemory(to: crypto_auth_hmacsha256_state.self, capacity: 1),
                key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
        }
    }
    auditKey.wipe()
    for (name, offset) in [("auditInnerState", 0), ("auditOuterState", halfLength)] {
        let half = SecureBytes(count: 32) { output in
            try? hmacState.withUnsafeBytes { state in
                output.copyMemory(from: UnsafeRawBufferPointer(rebasing: state[offset..<(offset + 32)]))
            }
        }
        keys.append(try MaskedKey(name: name, half))
    }
    hmacState.wipe()
    let signingRoot = try derived(vaultKey, vaultID: vaultID, label: "MedVault professional signing root v1")
    let professionalSalt = withUnsafeBytes(of: professional.id.uuid) { Array($0) }
    let signingSeed = try signingRoot.withUnsafeBytes { ikm in
        SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: professionalSalt,
                                   info: Array("MedVault professional signing key v1".utf8))
    }
    keys.append(try MaskedKey(name: "professionalSigningKey", signingSeed))
    keys.append(try MaskedKey(name: "signingRoot", signingRoot))
    for slot in rotated.slots {
        switch slot.derivation {
        case .argon2id(let parameters, let salt):
            keys.append(try MaskedKey(name: "passwordKEK",
                                      try Argon2id.deriveKey(password: second, salt: salt, parameters: parameters)))
        case .hkdfSHA256(let salt):
            keys.append(try MaskedKey(name: "recoveryKEK", try recoveryKey.bytes.withUnsafeBytes { ikm in
                SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt, info: KeyWrap.Label.recoveryKEK)
            }))
        case .storedSecret:
            continue
        }
    }
    return [try MaskedKey(name: "vaultKey", try vaultKey.copy())] + keys
}

let semaphore = DispatchSemaphore(value: 0)
nonisolated(unsafe) var learned: [MaskedKey] = []
nonisolated(unsafe) var failure: (any Error)?
Task.detached {
    do { learned = try await work() } catch { failure = error }
    semaphore.signal()
}
semaphore.wait()
if let failure {
    FileHandle.standardError.write(Data("probe failed: \(failure)\n".utf8))
    exit(1)
}
// Let the connection threads wind down before the scan.
Thread.sleep(forTimeInterval: 0.3)
// The self-check's deliberate leak: a plain heap copy of every key but the vault key, and a
// hex String of the database key.
var leaked: [[UInt8]] = []
var leakedHex = ""
if leaksForSelfCheck {
    leaked = learned.filter { $0.name != "vaultKey" }.map { key in (0..<32).map { key.byte($0) } }
    let databaseKey = learned.first { $0.name == "databaseKey" }!
    leakedHex = "x'" + (0..<32).map { String(format: "%02x", databaseKey.byte($0)) }.joined() + "'"
}
let (raw, hex) = scan(learned)
withExtendedLifetime((leaked, leakedHex)) {}
print(learned.indices.map { "\(learned[$0].name)=\(raw[$0]) \(learned[$0].name)Hex=\(hex[$0])" }.joined(separator: " "))
exit(0)
