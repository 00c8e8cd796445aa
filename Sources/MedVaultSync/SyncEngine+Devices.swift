import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

/// A device of the vault, as ``SyncEngine/devices()`` lists it.
public struct SyncDevice: Sendable, Hashable, Identifiable {
    /// The device's sync id (the `deviceID` of its envelopes and credentials).
    public let id: UUID
    /// The name the device gave itself (``SyncEngine/setDeviceName(_:)``); `nil` when it
    /// gave none, or its sealed name does not open with this vault's keys.
    public let name: String?
    /// Whether its keys carry a certificate of the vault's current sync epoch that this
    /// device checked against the epoch's authority key: only such a device receives the
    /// next epoch's keys when another is revoked. `false` for a device of an earlier build
    /// that has not synced since, a revoked one, or a certificate the server forged.
    public let isCertified: Bool
    /// When it registered or joined.
    public let registeredAt: Date
    /// When it last called the server, to within a minute; `nil` before the server
    /// recorded a call.
    public let lastSeenAt: Date?
    /// Whether it was revoked: its token no longer works.
    public let isRevoked: Bool
    /// Whether it is this device.
    public let isCurrent: Bool
}

extension SyncEngine {
    /// The longest device name, in characters.
    public static let maximumDeviceNameLength = 100

    /// Every device of the vault, revoked ones included, in the order they enrolled, with
    /// this one marked (``SyncDevice/isCurrent``).
    ///
    /// Names travel sealed under the vault's envelope key: the server keeps them but
    /// cannot read them.
    ///
    /// - Throws: `invalidArgument` before ``register()`` or ``join()``, or with a
    ///   transport that keeps no device list; transport errors.
    public func devices() async throws -> [SyncDevice] {
        let (list, credentials) = try await authenticated { credentials in
            (try await transport.devices(as: credentials), credentials)
        }
        let vaultID = vault.vaultID
        let epoch = list.epoch ?? 0
        // The certificates are of the server's epoch: one started by another device is
        // adopted first (its package checked), so they can be checked too.
        if epoch > (try await vault.database.read { db in try SyncEpochRecord.currentEpoch(db) }) {
            _ = try await adoptEpochs(credentials, through: epoch)
        }
        return try await vault.withSyncKeyChain { (chain: SyncKeyChain) async throws -> [SyncDevice] in
            let authority = chain.holds(epoch: epoch) ? try chain.keys(epoch: epoch).deviceSigningPublicKey() : nil
            return list.devices.map { info in
                SyncDevice(id: info.deviceID,
                           name: info.sealedName.flatMap { Self.openName($0, device: info.deviceID, vaultID: vaultID, chain) },
                           isCertified: Self.certifies(info.certificate, device: info.deviceID, epoch: epoch,
                                                       vaultID: vaultID, authority: authority),
                           registeredAt: Date(timeIntervalSince1970: TimeInterval(info.registeredAt)),
                           lastSeenAt: info.lastSeenAt.map { Date(timeIntervalSince1970: TimeInterval($0)) },
                           isRevoked: info.revoked, isCurrent: info.deviceID == credentials.deviceID)
            }
        }
    }

    /// Names this device for the other devices' lists ("Consulta — iPad"), sealed under
    /// the vault's envelope key before it leaves the device.
    ///
    /// - Throws: `validation` (field `name`) for a name that is empty, longer than
    ///   ``maximumDeviceNameLength`` characters or holds control characters, before any
    ///   request; `invalidArgument` before ``register()`` or ``join()``, or with a
    ///   transport that keeps no names; transport errors.
    public func setDeviceName(_ name: String) async throws {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        // Control and format characters (a right-to-left override, zero-width marks) would
        // let a name pose as another in the list; 400 UTF-8 bytes keep any sealed name
        // under the server's 1 KiB.
        guard !trimmed.isEmpty, trimmed.count <= Self.maximumDeviceNameLength, trimmed.utf8.count <= 400,
              !trimmed.unicodeScalars.contains(where: {
                  [.control, .format].contains($0.properties.generalCategory)
              }) else {
            throw MedVaultError(.validation, field: "name", reason: """
                must be 1 to \(Self.maximumDeviceNameLength) characters (400 bytes), without control or format characters
                """)
        }
        let vaultID = vault.vaultID
        try await authenticated { credentials in
            let sealed = try await vault.withSyncKeyChain { (chain: SyncKeyChain) async throws -> Data in
                try Self.sealName(trimmed, device: credentials.deviceID, vaultID: vaultID, chain.current)
            }
            try await transport.setName(try MedVaultError.fromWire {
                try SyncDeviceNameUpdate(sealedName: sealed)
            }, as: credentials)
        }
    }

    /// Whether `certificate` is `device`'s of `epoch`, signed by `authority`.
    static func certifies(_ certificate: SyncDeviceCertificate?, device: UUID, epoch: UInt32, vaultID: UUID,
                          authority: [UInt8]?) -> Bool {
        guard let certificate, let authority, certificate.deviceID == device, certificate.epoch == epoch else { return false }
        return SyncDeviceKey.verify(Array(certificate.signature), of: Array(certificate.message(vaultID: vaultID)), by: authority)
    }

    // MARK: - Sealed names

    static let nameLabel = Array("MedVault sync device name v1".utf8)
    /// Names are padded to a multiple of this many bytes: the length tells little.
    static let namePadding = 128

    static let epochNameLabel = Array("MedVault sync device name v2".utf8)

    /// Associated data: the label, the vault id and the device id, so a name cannot be
    /// moved to another device or vault; from epoch 1 the v2 label and the epoch too.
    static func nameAssociatedData(device: UUID, vaultID: UUID, epoch: UInt32) -> [UInt8] {
        var bytes = epoch == 0 ? nameLabel : epochNameLabel
        withUnsafeBytes(of: vaultID.uuid) { bytes += $0 }
        withUnsafeBytes(of: device.uuid) { bytes += $0 }
        if epoch != 0 { withUnsafeBytes(of: epoch.bigEndian) { bytes += $0 } }
        return bytes
    }

    /// A name sealed under `keys`' envelope key; from epoch 1 preceded by the epoch (4
    /// bytes, big-endian), which a name of epoch 0 lacks (its length is a multiple of 128
    /// plus 28, a later one's plus 32).
    static func sealName(_ name: String, device: UUID, vaultID: UUID, _ keys: SyncKeys) throws -> Data {
        var plaintext = Array(name.utf8)
        let padded = (plaintext.count / namePadding + 1) * namePadding
        plaintext += [UInt8](repeating: 0, count: padded - plaintext.count)
        let sealed = try keys.seal(plaintext, associatedData: nameAssociatedData(device: device, vaultID: vaultID,
                                                                                  epoch: keys.epoch))
        guard keys.epoch != 0 else { return Data(sealed) }
        return Data(withUnsafeBytes(of: keys.epoch.bigEndian) { Array($0) } + sealed)
    }

    static func openName(_ sealed: Data, device: UUID, vaultID: UUID, _ chain: SyncKeyChain) -> String? {
        let bytes = Array(sealed)
        var epoch: UInt32 = 0
        var body = bytes[...]
        if bytes.count % namePadding == (SyncKeys.sealingOverhead + 4) % namePadding, bytes.count >= 4 {
            epoch = bytes.prefix(4).reduce(0) { ($0 << 8) | UInt32($1) }
            body = bytes.dropFirst(4)
        }
        guard epoch > 0 || bytes.count % namePadding == SyncKeys.sealingOverhead % namePadding,
              let keys = try? chain.keys(epoch: epoch),
              let plaintext = try? keys.open(Array(body), associatedData: nameAssociatedData(device: device, vaultID: vaultID,
                                                                                             epoch: epoch)) else {
            return nil
        }
        let end = plaintext.firstIndex(of: 0) ?? plaintext.count
        guard let name = String(bytes: plaintext[..<end], encoding: .utf8), !name.isEmpty else { return nil }
        return name
    }
}
