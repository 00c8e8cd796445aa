import Foundation
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

/// Signed pushes (docs/sync.md, "Signed pushes"): a device signs the ids and digests of
/// the envelopes it pushes with its own certified key; a receiver takes an envelope of
/// epoch 1 or later only from a signed push whose signer's certificate verifies under the
/// epoch's authority key, whose signature verifies, which lists the envelope's digest,
/// and whose signer is the envelope's sealed author. One signature check per push, one
/// SHA-256 per envelope.
enum PushSignatures {
    /// The digest a signature lists for `envelope`: SHA-256 of epoch ‖ id ‖ record key ‖ ciphertext.
    static func digest(_ envelope: SyncEnvelope) -> Data {
        var hasher = SHA256Hasher()
        for part in SyncPushSignature.digestInput(envelope) { hasher.update(part) }
        return Data(hasher.finalize().bytes)
    }

    /// `envelopes` (all of `certificate`'s epoch) signed by `deviceKey`.
    static func sign(_ envelopes: [SyncEnvelope], vaultID: UUID, deviceKey: SyncDeviceKey,
                     certificate: SyncDeviceCertificate) throws -> SyncPushSignature {
        var entries = Data(capacity: envelopes.count * SyncPushSignature.entryLength)
        for envelope in envelopes {
            withUnsafeBytes(of: envelope.id.uuid) { entries.append(contentsOf: $0) }
            entries.append(digest(envelope))
        }
        let message = SyncPushSignature.message(vaultID: vaultID, signer: certificate.deviceID, epoch: certificate.epoch,
                                                entries: entries)
        return try MedVaultError.fromWire {
            try SyncPushSignature(signer: certificate.deviceID, epoch: certificate.epoch, entries: entries,
                                  certificate: certificate, signature: Data(try deviceKey.sign(Array(message))))
        }
    }

    /// Checks pulled envelopes against their page's signatures, each signature once.
    struct Verifier {
        let chain: SyncKeyChain
        let vaultID: UUID
        /// By index in the page's signatures: the digests by id of one that verified, or
        /// `nil` for one that did not.
        private var checked: [Int: [UUID: Data]?] = [:]

        init(chain: SyncKeyChain, vaultID: UUID) {
            self.chain = chain
            self.vaultID = vaultID
        }

        static let unsigned = MedVaultError(
            .corrupted, reason: "the envelope is not in a push signed by a device certified for its epoch")

        /// The device that signed `pulled`'s push, or `nil` for an unsigned envelope of
        /// epoch 0 (pushed by a build before signatures).
        ///
        /// - Throws: `corrupted` for an envelope of epoch 1 or later without a signed push,
        ///   or one whose push's certificate, signature or digest does not verify.
        mutating func signer(of pulled: SyncPulledEnvelope, signatures: [SyncPushSignature]?) throws -> UUID? {
            guard let index = pulled.signature else {
                guard pulled.envelope.epoch == 0 else { throw Self.unsigned }
                return nil
            }
            guard let signatures, signatures.indices.contains(index) else { throw Self.unsigned }
            let signature = signatures[index]
            if checked[index] == nil { checked[index] = verify(signature) }
            guard let digests = checked[index] ?? nil, signature.epoch == pulled.envelope.epoch,
                  let listed = digests[pulled.envelope.id], listed == PushSignatures.digest(pulled.envelope) else {
                throw Self.unsigned
            }
            return signature.signer
        }

        private func verify(_ signature: SyncPushSignature) -> [UUID: Data]? {
            guard let keys = try? chain.keys(epoch: signature.epoch),
                  let authority = try? keys.deviceSigningPublicKey(),
                  SyncEngine.certifies(signature.certificate, device: signature.signer, epoch: signature.epoch,
                                       vaultID: vaultID, authority: authority) else { return nil }
            let message = SyncPushSignature.message(vaultID: vaultID, signer: signature.signer, epoch: signature.epoch,
                                                    entries: signature.entries)
            guard SyncDeviceKey.verify(Array(signature.signature), of: Array(message),
                                       by: Array(signature.certificate.signingKey)) else { return nil }
            return signature.digests()
        }
    }
}
