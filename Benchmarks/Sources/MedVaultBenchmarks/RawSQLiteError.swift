import CSQLCipherBench

/// A failure of the raw reference: SQLite's code and message (benchmark data is
/// synthetic, so the message cannot leak anything).
struct RawSQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    let context: String

    init(code: Int32, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
    }

    init(_ handle: OpaquePointer, _ code: Int32, _ context: String) {
        self.init(code: code, message: String(cString: sqlite3_errmsg(handle)), context: context)
    }

    var description: String { "raw SQLCipher \(context) failed (\(code)): \(message)" }
}
