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
/// Neither table is change-logged or synced, and neither has a trigger.
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
            """)
    }
}
