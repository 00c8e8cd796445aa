import Foundation
import MedVaultJSONShape

/// The JSON choices of the sync API, shared by the server and the HTTP transport so both
/// ends write and read the same bytes.
///
/// Byte strings (`Data`) are standard base64 with padding and UUIDs upper-case strings
/// (Foundation's defaults); no type of the API holds a `Date`. Keys are sorted, so one
/// value is always the same bytes.
public enum SyncWireJSON {
    /// A new encoder: sorted keys, Foundation's default base64 for `Data`.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dataEncodingStrategy = .base64
        return encoder
    }

    /// A new decoder: base64 for `Data`, matching ``encoder()``.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        return decoder
    }

    /// Whether `data` is JSON at most 64 levels deep with no key twice in one object:
    /// `false` for a repeated key and for any text the check cannot read. Foundation's
    /// decoder keeps one value of a repeated key without a word, so two readers of the
    /// same body could disagree on what it said; the sync server refuses such a body
    /// before decoding it.
    ///
    /// The same check as `StrictJSON.hasUniqueKeys` of MedVaultCore (both call the shape
    /// reader's), here so that the server needs no MedVaultCore.
    public static func hasUniqueKeys(_ data: Data) -> Bool {
        JSONShape.hasUniqueKeys(data)
    }
}
