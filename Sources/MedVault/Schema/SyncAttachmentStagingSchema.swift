/// Migration "sync attachment staging" (issue #16): where a device keeps the content of
/// an attachment that another device is sending it, until every chunk and the metadata
/// are here (see `docs/sync.md`, "Attachments").
///
/// - `sync_attachment_chunk`: the 64 KiB chunks received for an attachment that is not
///   complete on this device yet, by attachment id and index. Moved to
///   `attachment_chunk` in the transaction that completes the attachment; dropped when
///   the attachment is deleted or its metadata refused.
/// - `sync_attachment_incoming`: the marker of an incomplete `attachment` row written by
///   sync (metadata here, chunks still travelling). The open-time clean-up of
///   incomplete attachments (leftovers of a crashed local write) leaves marked rows
///   alone.
///
/// - `sync_attachment_resend`: complete attachments this device synced before contents
///   travelled (metadata only): filled once, here, with every complete attachment whose
///   sync clock is this device's; the next seal sends their chunks and empties it.
///
/// None of these tables is change-logged or synced, and none has a trigger.
/// Frozen: its SQL is a literal.
enum SyncAttachmentStagingSchema {
    static func createStaging(_ db: DatabaseConnection) throws {
        try db.executeScript("""
            CREATE TABLE sync_attachment_chunk (
                attachment_id BLOB NOT NULL CHECK (length(attachment_id) = 16),
                seq INTEGER NOT NULL CHECK (seq >= 0),
                data BLOB NOT NULL,
                PRIMARY KEY (attachment_id, seq)
            );
            CREATE TABLE sync_attachment_incoming (
                attachment_id BLOB NOT NULL PRIMARY KEY CHECK (length(attachment_id) = 16)
            ) WITHOUT ROWID;
            CREATE TABLE sync_attachment_resend (
                attachment_id BLOB NOT NULL PRIMARY KEY CHECK (length(attachment_id) = 16)
            ) WITHOUT ROWID;
            """ + listResends)
    }

    /// Lists the attachments this device synced before contents travelled: complete,
    /// with content, and whose sync clock is this device's (they were sealed here).
    static let listResends = """
        INSERT OR IGNORE INTO sync_attachment_resend (attachment_id)
            SELECT c.record_id FROM sync_record_clock c JOIN attachment a ON a.id = c.record_id
            WHERE c.table_name = 'attachment' AND a.is_complete = 1 AND a.byte_count > 0
              AND c.device_id = (SELECT device_id FROM sync_state WHERE singleton = 1);
        """
}
