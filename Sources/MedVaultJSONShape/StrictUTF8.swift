import Foundation

/// Decodes UTF-8, or returns `nil` when the bytes are not valid UTF-8.
///
/// `String(validating:as:)` would do, but needs macOS 15 / iOS 18; a lossless round trip
/// through the repairing decoder is equivalent. Inlinable: other modules call it per
/// string they read, and an unspecialized generic walk of the bytes is slow.
@inlinable package func strictUTF8<Bytes: Collection>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.utf8.elementsEqual(bytes) ? text : nil
}
