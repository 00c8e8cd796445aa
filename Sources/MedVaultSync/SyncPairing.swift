import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

/// A new device asking an enrolled one to approve its join (docs/sync.md, "Approving a
/// new device"): the way to add a device without typing the recovery kit.
///
/// ```swift
/// // On the new device:
/// let pairing = try await SyncPairing.begin(transport: transport)
/// show(pairing.code.formatted, pairing.authenticationString)     // text or QR, and 6 digits
/// // On an enrolled device, with the code the user typed or scanned:
/// let request = try await engine.pairingRequest(code: try SyncPairingCode(parsing: typed))
/// show(request.authenticationString)     // the user checks both screens show the same digits
/// try await engine.approve(request)      // or engine.reject(request)
/// // Back on the new device, with the vault's password:
/// let vault = try await pairing.join(at: folder, password: password)
/// ```
///
/// The enrolled device seals the vault's id and sync secret to this device's key; the
/// new device then joins as with the recovery kit (the server's keyring and epoch keys,
/// opened with the secret and the password). The code never reaches the server, which
/// sees only an id derived from it: it can neither read the secret, nor put its own key
/// in the request, nor forge the answer. Without an approval, or a refusal, nothing is
/// enrolled.
public struct SyncPairing: Sendable {
    /// The code to show: its `SyncPairingCode.formatted` text, or that text in a QR code.
    public let code: SyncPairingCode
    /// The 6 digits to show beside it, which the approving device shows too.
    public let authenticationString: String
    /// The server.
    public let transport: any SyncTransport
    private let key: SyncDeviceKey
    private let boxKey: Data

    /// Starts a pairing: a new code and key, and the request posted to the server.
    ///
    /// - Throws: `invalidArgument` with a transport without pairing; transport errors.
    public static func begin(transport: any SyncTransport) async throws -> SyncPairing {
        let code = SyncPairingCode.generate()
        let key = SyncDeviceKey.generate()
        let boxKey = Data(try key.boxPublicKey())
        try await transport.createPairing(try MedVaultError.fromWire {
            try SyncPairingRequest(
                pairingID: try code.pairingID(), boxKey: boxKey,
                mac: Data(try code.authenticate(Array(SyncPairingRequest.message(boxKey: boxKey)))))
        })
        return SyncPairing(code: code, authenticationString: try code.authenticationString(boxKey: Array(boxKey)),
                           transport: transport, key: key, boxKey: boxKey)
    }

    /// The vault id and sync secret an enrolled device sent, once it approved.
    ///
    /// - Returns: `nil` while no device answered.
    /// - Throws: `cancelled` when the user refused it on the enrolled device; `corrupted`
    ///   for an answer not made with this pairing's code or not sealed to this device
    ///   (the server's); `notFound` once the pairing expired; transport errors.
    public func approval() async throws -> (vaultID: UUID, syncSecret: SyncSecret)? {
        let state = try await transport.pairing(id: try code.pairingID())
        guard let answer = state.approval else { return nil }
        let expected = try code.authenticate(Array(SyncPairingApproval.message(boxKey: boxKey, sealed: answer.sealed)))
        guard SyncPairing.constantTimeEqual(expected, Array(answer.mac)) else {
            throw MedVaultError(.corrupted, reason: "the pairing's answer was not made with this pairing's code")
        }
        guard let sealed = answer.sealed else {
            throw MedVaultError(.cancelled, reason: "the enrolled device refused this pairing")
        }
        let opened = try key.open(Array(sealed))
        defer { opened.wipe() }
        return try Self.openPayload(opened)
    }

    /// Creates this device's copy of the approved vault and joins it: the server's keyring
    /// opened with the sync secret the approval carried and unlocked with `password`
    /// (`Vault.join(at:keyring:syncSecret:password:options:)`), then `SyncEngine.join()`.
    /// The next `sync()` clones the records.
    ///
    /// - Throws: `invalidArgument` before an approval; the errors of ``approval()``, of
    ///   `Vault.join` (`wrongPassword`…) and of `SyncEngine.join()`. Nothing is left in
    ///   `folder` when the vault cannot be created.
    public func join(at folder: URL, password: Password, options: Vault.Options = Vault.Options()) async throws -> Vault {
        guard let (vaultID, secret) = try await approval() else {
            throw MedVaultError(.invalidArgument, reason: "no enrolled device approved this pairing yet")
        }
        let bundle = try await transport.recovery(vaultID: vaultID)
        let vault = try await Vault.join(at: folder, keyring: bundle.keyring.keyring, syncSecret: secret,
                                         password: password, options: options)
        try await SyncEngine(vault: vault, transport: transport).join()
        return vault
    }

    // MARK: - The answer's payload

    static let payloadLabel = Array("MVPAIR01".utf8)
    static let payloadLength = 8 + 16 + 16

    /// `MVPAIR01` ‖ vault id ‖ sync secret, in secure memory.
    static func payload(vaultID: UUID, secret: SyncSecret) throws -> SecureBytes {
        var header = payloadLabel
        withUnsafeBytes(of: vaultID.uuid) { header += $0 }
        return try header.withUnsafeBytes { headerBytes in
            try secret.withStoredBytes { secretBytes in SecureBytes(concatenating: [headerBytes, secretBytes]) }
        }
    }

    static func openPayload(_ payload: SecureBytes) throws -> (vaultID: UUID, syncSecret: SyncSecret) {
        try payload.withUnsafeBytes { bytes in
            guard bytes.count == payloadLength, Array(bytes.prefix(payloadLabel.count)) == payloadLabel else {
                throw MedVaultError(.corrupted, reason: "the pairing's answer is not a vault's secret")
            }
            let vaultID = UUID(uuid: UnsafeRawBufferPointer(rebasing: bytes[8..<24]).loadUnaligned(as: uuid_t.self))
            return (vaultID, try SyncSecret(storedBytes: UnsafeRawBufferPointer(rebasing: bytes[24...])))
        }
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// A new device's pairing request, as an enrolled device read it with the code
/// (``SyncEngine/pairingRequest(code:)``).
public struct SyncPairingPending: Sendable {
    /// The 6 digits to show: the new device shows the same when this is its request.
    public let authenticationString: String
    let code: SyncPairingCode
    let boxKey: Data
}

extension SyncEngine {
    /// Reads the pairing request of the new device whose code the user typed or scanned.
    ///
    /// - Throws: `notFound` when there is none (a mistyped code that passed its checksum,
    ///   or an expired pairing); `corrupted` when the request at that id was not made with
    ///   the code (the server substituted its own key); transport errors.
    public func pairingRequest(code: SyncPairingCode) async throws -> SyncPairingPending {
        let state = try await transport.pairing(id: try code.pairingID())
        let boxKey = state.request.boxKey
        let expected = try code.authenticate(Array(SyncPairingRequest.message(boxKey: boxKey)))
        guard SyncPairing.constantTimeEqual(expected, Array(state.request.mac)) else {
            throw MedVaultError(.corrupted, reason: "the pairing request was not made with this code")
        }
        return SyncPairingPending(authenticationString: try code.authenticationString(boxKey: Array(boxKey)),
                                  code: code, boxKey: boxKey)
    }

    /// Approves a pairing once the user saw the same digits on both screens: the vault's id
    /// and sync secret are sealed to the new device's key and posted, authenticated under
    /// the code. The new device then joins with the vault's password.
    ///
    /// - Throws: `invalidArgument` before this device knows the vault's secret (see
    ///   ``syncSecret()``); `conflict` when the pairing was answered already (by another
    ///   answer: a retry that finds its own stored succeeds); transport errors.
    public func approve(_ request: SyncPairingPending) async throws {
        guard let secret = try await syncSecret() else {
            throw MedVaultError(.invalidArgument, reason: "this device does not hold the vault's sync secret yet")
        }
        let payload = try SyncPairing.payload(vaultID: vault.vaultID, secret: secret)
        defer { payload.wipe() }
        let sealed = Data(try SyncDeviceKey.seal(payload, to: Array(request.boxKey)))
        try await answer(request, sealed: sealed)
    }

    /// Refuses a pairing (the digits differed): the new device learns it and enrols nothing.
    ///
    /// - Throws: `conflict` when the pairing was answered already; transport errors.
    public func reject(_ request: SyncPairingPending) async throws {
        try await answer(request, sealed: nil)
    }

    private func answer(_ request: SyncPairingPending, sealed: Data?) async throws {
        let mac = try request.code.authenticate(Array(SyncPairingApproval.message(boxKey: request.boxKey, sealed: sealed)))
        let approval = try MedVaultError.fromWire {
            try SyncPairingApproval(sealed: sealed, mac: Data(mac))
        }
        let id = try request.code.pairingID()
        do {
            try await authenticated { try await transport.answerPairing(id: id, approval, as: $0) }
        } catch let error as MedVaultError where error.code == .conflict {
            // A retry whose first attempt was stored (its answer lost) meets its own answer:
            // done. Any other answer stored first is a conflict.
            guard try await transport.pairing(id: id).approval == approval else { throw error }
        }
    }
}
