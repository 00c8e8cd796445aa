import MedVaultCore
import Testing

@Suite("SQLite result codes by name")
struct SQLiteResultCodeTests {
    @Test("Named codes are sqlite3.h's values; an extended code's primary is its low byte")
    func namedCodes() {
        #expect(SQLiteResultCode.busy.rawValue == 5)
        #expect(SQLiteResultCode.notADatabase.rawValue == 26)
        #expect(SQLiteResultCode.full.rawValue == 13)
        // SQLITE_IOERR_FSYNC = SQLITE_IOERR | (4 << 8); SQLITE_CONSTRAINT_FOREIGNKEY = 19 | (3 << 8)
        #expect(SQLiteResultCode(rawValue: 10 | (4 << 8)).primary == .ioError)
        #expect(SQLiteResultCode(rawValue: 19 | (3 << 8)).isPrimary(.constraint))
        #expect(!SQLiteResultCode(rawValue: 19 | (3 << 8)).isPrimary(.corrupt))
    }

    @Test("MedVaultError exposes its SQLite code by name")
    func errorCode() {
        let error = MedVaultError(.storage, reason: "the disk is full", sqliteCode: 13)
        #expect(error.sqliteResultCode == .full)
        #expect(MedVaultError(.notFound, reason: "no such record").sqliteResultCode == nil)
    }
}
