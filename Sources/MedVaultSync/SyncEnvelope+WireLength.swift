import Foundation
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
