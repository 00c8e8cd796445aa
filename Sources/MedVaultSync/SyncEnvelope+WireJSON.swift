import Foundation
import MedVault
import MedVaultSyncWire

extension SyncEnvelope {
    /// The length of this envelope's JSON as `SyncWireJSON`'s encoder writes it (sorted
    /// keys, base64, `/` escaped; `epoch` only when not 0), without encoding it: the
    /// outbox sizes every push by it.
    var wireJSONLength: Int {
        func quoted(_ data: Data) -> Int {
            let base64 = data.base64EncodedString().utf8
            return base64.count + base64.reduce(0) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) } + 2
        }
        // {"ciphertext":…,"epoch":…,"id":"<36>","recordKey":…}
        let keys = #"{"ciphertext":,"id":,"recordKey":}"#.utf8.count
        let epochPart = epoch == 0 ? 0 : #""epoch":,"#.utf8.count + String(epoch).utf8.count
        return keys + quoted(ciphertext) + epochPart + 38 + quoted(recordKey)
    }
}

extension SyncEnvelope {
    /// Writes this envelope as `SyncWireJSON`'s encoder does.
    func write(into writer: inout SyncJSONWriter) {
        writer.object { writer in
            writer.key("ciphertext"); writer.base64(ciphertext)
            if epoch != 0 { writer.key("epoch"); writer.integer(epoch) }
            writer.key("id"); writer.uuid(id)
            writer.key("recordKey"); writer.base64(recordKey)
        }
    }
}

extension SyncPushRequest {
    /// This push's body, byte for byte as `SyncWireJSON`'s encoder writes it: the
    /// envelopes by ``SyncJSONWriter`` (a push of 500 spent most of its encoding time in
    /// `JSONEncoder`), the signature by the encoder.
    func wireJSON() throws -> Data {
        var writer = SyncJSONWriter(capacity: envelopes.reduce(64) { $0 + $1.wireJSONLength + 1 })
        try writer.object { writer in
            writer.key("envelopes")
            writer.array { writer in
                for envelope in envelopes { envelope.write(into: &writer) }
            }
            if let signature {
                writer.key("signature")
                try writer.raw(SyncWireJSON.encoder().encode(signature))
            }
        }
        return Data(writer.bytes)
    }
}
