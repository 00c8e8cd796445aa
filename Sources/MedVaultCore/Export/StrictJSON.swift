import Foundation
import MedVaultJSONShape

/// Checks that JSON decoders do not make: for tools that read records from JSON (the
/// `medvault` CLI's `--json` input), as ``PatientRecordExport/documents(jsonData:)`` does
/// for imports.
///
/// ```swift
/// StrictJSON.repeatedKey(in: Data(#"{"a": 1, "a": 2}"#.utf8))   // "a"
/// ```
public enum StrictJSON {
    /// The path (`sessions[0].status`) of the first key that appears twice in one object
    /// — `JSONDecoder` and `JSONSerialization` keep one of the values without a word —
    /// escaped and at most 120 characters; `nil` when there is none, or when `data` is not
    /// JSON (the decoder then says why).
    public static func repeatedKey(in data: Data) -> String? {
        JSONShape(data)?.repeatedKey().map { TextSafety.escaped(String($0.prefix(120))) }
    }

    /// Whether `data` is JSON this checker reads — at most 64 levels deep — with no key
    /// twice in one object: `false` for a repeated key and for any text it cannot read, so
    /// that nothing a decoder would accept slips past the check (`JSONDecoder` reads 512
    /// levels). The sync wire's `SyncWireJSON.hasUniqueKeys` is the same check.
    public static func hasUniqueKeys(_ data: Data) -> Bool {
        JSONShape.hasUniqueKeys(data)
    }
}
