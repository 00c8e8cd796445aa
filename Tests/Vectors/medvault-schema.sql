-- MedVault schema: the golden file of SchemaGoldenTests.
-- Regenerate: MEDVAULT_UPDATE_GOLDEN=1 swift test --filter SchemaGoldenTests
-- applied migrations: clinical records | medications | ordered patient search index | icd11 catalogue cache | parent checks without statement journals | medication strength, dose corrections and refills | medication schedule lifecycle and reminders | session signatures and addenda | change log | sync state | audit trail | sync attachment staging | medication stock ledger | sync refusals | sync secret | professional signatures | sync device sequences | sync epochs | audit origin | session note search | dose journal | sync seal plan | shared diagnosis snapshots | sync outbox without an id index

-- index attachment_by_session on attachment
CREATE INDEX attachment_by_session ON attachment(session_id, created_at, id)

-- index clinical_session_agenda on clinical_session
CREATE INDEX clinical_session_agenda ON clinical_session(date_ms, id)

-- index clinical_session_history on clinical_session
CREATE INDEX clinical_session_history ON clinical_session(patient_id, date_ms, id)

-- index diagnosis_by_session on diagnosis_row
CREATE INDEX diagnosis_by_session ON diagnosis_row(session_id, diagnosed_at, id)

-- index dose_log_by_patient_time on dose_log
CREATE INDEX dose_log_by_patient_time ON dose_log(patient_id, scheduled_at, medication_id)

-- index dose_log_revision_by_log on dose_log_revision
CREATE INDEX dose_log_revision_by_log ON dose_log_revision(dose_log_id, rowid)

-- index dose_log_revision_by_medication on dose_log_revision
CREATE INDEX dose_log_revision_by_medication ON dose_log_revision(medication_id, rowid)

-- index dose_snooze_by_patient_time on dose_snooze
CREATE INDEX dose_snooze_by_patient_time ON dose_snooze(patient_id, scheduled_at)

-- index icd11_cache_uri on icd11_cache
CREATE INDEX icd11_cache_uri ON icd11_cache(release_version, uri)

-- index icd11_snapshot_by_value on icd11_snapshot
CREATE UNIQUE INDEX icd11_snapshot_by_value ON icd11_snapshot(release_version, code, uri, title, title_es)

-- index medication_by_patient on medication
CREATE INDEX medication_by_patient ON medication(patient_id)

-- index medication_refill_by_medication on medication_refill
CREATE INDEX medication_refill_by_medication ON medication_refill(medication_id, refill_date, created_at)

-- index medication_schedule_by_medication on medication_schedule
CREATE INDEX medication_schedule_by_medication ON medication_schedule(medication_id, created_at, id)

-- index medication_schedule_by_series on medication_schedule
CREATE INDEX medication_schedule_by_series ON medication_schedule(series_id)

-- index medication_stock_adjustment_by_medication on medication_stock_adjustment
CREATE INDEX medication_stock_adjustment_by_medication
ON medication_stock_adjustment(medication_id)

-- index patient_list on patient
CREATE INDEX patient_list ON patient(deleted_at IS NULL, sort_key, id)

-- index patient_order on patient
CREATE INDEX patient_order ON patient(sort_key, id)

-- index patient_search_token_patient on patient_search_token
CREATE INDEX patient_search_token_patient ON patient_search_token(patient_rowid)

-- index session_addendum_by_session on session_addendum
CREATE INDEX session_addendum_by_session ON session_addendum(session_id, position)

-- index session_note_document_recent on session_note_document
CREATE INDEX session_note_document_recent ON session_note_document(date_ms, session_id)

-- index sqlite_autoindex_attachment_1 on attachment
(automatic)

-- index sqlite_autoindex_attachment_chunk_1 on attachment_chunk
(automatic)

-- index sqlite_autoindex_clinical_session_1 on clinical_session
(automatic)

-- index sqlite_autoindex_diagnosis_row_1 on diagnosis_row
(automatic)

-- index sqlite_autoindex_dose_log_1 on dose_log
(automatic)

-- index sqlite_autoindex_dose_log_2 on dose_log
(automatic)

-- index sqlite_autoindex_dose_log_revision_1 on dose_log_revision
(automatic)

-- index sqlite_autoindex_dose_snooze_1 on dose_snooze
(automatic)

-- index sqlite_autoindex_medication_1 on medication
(automatic)

-- index sqlite_autoindex_medication_refill_1 on medication_refill
(automatic)

-- index sqlite_autoindex_medication_schedule_1 on medication_schedule
(automatic)

-- index sqlite_autoindex_medication_search_segdir_1 on medication_search_segdir
(automatic)

-- index sqlite_autoindex_medication_stock_adjustment_1 on medication_stock_adjustment
(automatic)

-- index sqlite_autoindex_medvault_device_1 on medvault_device
(automatic)

-- index sqlite_autoindex_medvault_metadata_1 on medvault_metadata
(automatic)

-- index sqlite_autoindex_medvault_migrations_1 on medvault_migrations
(automatic)

-- index sqlite_autoindex_patient_1 on patient
(automatic)

-- index sqlite_autoindex_professional_1 on professional
(automatic)

-- index sqlite_autoindex_session_addendum_1 on session_addendum
(automatic)

-- index sqlite_autoindex_session_note_document_1 on session_note_document
(automatic)

-- index sqlite_autoindex_session_note_search_segdir_1 on session_note_search_segdir
(automatic)

-- index sqlite_autoindex_session_signature_1 on session_signature
(automatic)

-- index sqlite_autoindex_sync_attachment_chunk_1 on sync_attachment_chunk
(automatic)

-- index sqlite_autoindex_sync_conflict_1 on sync_conflict
(automatic)

-- index sqlite_autoindex_sync_conflict_2 on sync_conflict
(automatic)

-- index sync_outbox_by_epoch on sync_outbox
CREATE INDEX sync_outbox_by_epoch ON sync_outbox (epoch)

-- table attachment on attachment
CREATE TABLE attachment (
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
session_id BLOB NOT NULL REFERENCES clinical_session(id) ON DELETE CASCADE,
file_name TEXT NOT NULL,
mime_type TEXT NOT NULL,
byte_count INTEGER NOT NULL DEFAULT 0 CHECK (byte_count >= 0),
sha256 BLOB CHECK (sha256 IS NULL OR length(sha256) = 32),
is_complete INTEGER NOT NULL DEFAULT 0 CHECK (is_complete IN (0, 1)),
created_at INTEGER NOT NULL,
updated_at INTEGER NOT NULL,
version INTEGER NOT NULL,
CHECK (is_complete = 0 OR sha256 IS NOT NULL)
)

-- table attachment_chunk on attachment_chunk
CREATE TABLE attachment_chunk (
attachment_id BLOB NOT NULL REFERENCES attachment(id) ON DELETE CASCADE,
seq INTEGER NOT NULL,
data BLOB NOT NULL,
PRIMARY KEY (attachment_id, seq)
)

-- table clinical_session on clinical_session
CREATE TABLE clinical_session (
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
patient_id BLOB NOT NULL REFERENCES patient(id),
date_ms INTEGER NOT NULL,
type TEXT NOT NULL,
duration_minutes INTEGER NOT NULL CHECK (duration_minutes BETWEEN 1 AND 1440),
status TEXT NOT NULL,
created_at INTEGER NOT NULL,
updated_at INTEGER NOT NULL,
version INTEGER NOT NULL,
chief_complaint TEXT,
treatment_plan TEXT,
notes TEXT
)

-- table diagnosis_row on diagnosis_row
CREATE TABLE diagnosis_row (
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
session_id BLOB NOT NULL REFERENCES clinical_session(id),
snapshot_id INTEGER NOT NULL REFERENCES icd11_snapshot(id),
diagnosis_type TEXT NOT NULL,
severity TEXT,
diagnosed_at INTEGER NOT NULL,
created_at INTEGER NOT NULL,
updated_at INTEGER NOT NULL,
version INTEGER NOT NULL,
clinical_notes TEXT
)

-- table dose_journal_merged on dose_journal_merged
CREATE TABLE dose_journal_merged (
entry_id BLOB NOT NULL PRIMARY KEY CHECK (length(entry_id) = 16),
outcome TEXT NOT NULL,
merged_at INTEGER NOT NULL
) WITHOUT ROWID

-- table dose_journal_state on dose_journal_state
CREATE TABLE dose_journal_state (
singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
journal_key BLOB NOT NULL CHECK (length(journal_key) = 32),
plan_days INTEGER NOT NULL CHECK (plan_days BETWEEN 1 AND 31),
time_zone TEXT NOT NULL,
issued_at INTEGER NOT NULL,
plan_until INTEGER -- the end of the latest plan written; a merge refuses later doses
)

-- table dose_log on dose_log
CREATE TABLE dose_log (
rowid INTEGER PRIMARY KEY,
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
medication_id BLOB NOT NULL REFERENCES medication(id),
patient_id BLOB NOT NULL,
scheduled_at INTEGER NOT NULL,
taken_at INTEGER,
status TEXT NOT NULL CHECK (status IN ('taken', 'late', 'skipped', 'missed')),
skip_reason TEXT,
notes TEXT,
created_at INTEGER NOT NULL,
updated_at INTEGER NOT NULL,
version INTEGER NOT NULL CHECK (version >= 1), amount INTEGER CHECK (amount > 0),
UNIQUE (medication_id, scheduled_at),
CHECK ((taken_at IS NOT NULL) = (status IN ('taken', 'late'))),
CHECK (skip_reason IS NULL OR status = 'skipped')
)

-- table dose_log_revision on dose_log_revision
CREATE TABLE dose_log_revision (
rowid INTEGER PRIMARY KEY,
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
dose_log_id BLOB NOT NULL CHECK (length(dose_log_id) = 16),
medication_id BLOB NOT NULL REFERENCES medication(id),
patient_id BLOB NOT NULL,
kind TEXT NOT NULL CHECK (kind IN ('correction', 'void')),
reason TEXT,
recorded_at INTEGER NOT NULL,
scheduled_at INTEGER NOT NULL,
taken_at INTEGER,
amount INTEGER,
status TEXT NOT NULL,
skip_reason TEXT,
notes TEXT,
created_at INTEGER NOT NULL,
updated_at INTEGER NOT NULL,
version INTEGER NOT NULL
)

-- table dose_snooze on dose_snooze
CREATE TABLE dose_snooze (
medication_id BLOB NOT NULL REFERENCES medication(id),
patient_id BLOB NOT NULL,
scheduled_at INTEGER NOT NULL,
snoozed_until INTEGER NOT NULL,
snooze_count INTEGER NOT NULL CHECK (snooze_count >= 1),
updated_at INTEGER NOT NULL,
PRIMARY KEY (medication_id, scheduled_at)
)

-- table icd11_cache on icd11_cache
CREATE TABLE icd11_cache (
release_version TEXT NOT NULL, -- YYYY-MM
code TEXT NOT NULL, -- MMS code
uri TEXT NOT NULL, -- the URI a snapshot keeps
linearization_uri TEXT, -- the MMS URI in its release
titles TEXT NOT NULL, -- JSON object: language tag -> title
cached_at INTEGER NOT NULL, -- last saved, milliseconds UTC
PRIMARY KEY (release_version, code)
) WITHOUT ROWID

-- table icd11_snapshot on icd11_snapshot
CREATE TABLE icd11_snapshot (
id INTEGER PRIMARY KEY,
release_version TEXT NOT NULL,
code TEXT NOT NULL,
uri TEXT NOT NULL,
title TEXT NOT NULL,
title_es TEXT
)

-- table medication on medication
CREATE TABLE medication (
rowid INTEGER PRIMARY KEY, -- the search index's docid
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
patient_id BLOB NOT NULL REFERENCES patient(id),
name TEXT NOT NULL,
generic_name TEXT,
dosage_amount INTEGER NOT NULL CHECK (dosage_amount > 0),
dosage_unit TEXT NOT NULL,
form TEXT NOT NULL,
route TEXT NOT NULL,
frequency_kind TEXT NOT NULL,
frequency_count INTEGER,
frequency_times TEXT,
frequency_time_labels TEXT,
instructions TEXT,
start_date TEXT NOT NULL,
end_date TEXT,
is_active INTEGER NOT NULL CHECK (is_active IN (0, 1)),
requires_prescription INTEGER NOT NULL CHECK (requires_prescription IN (0, 1)),
inventory_current INTEGER CHECK (inventory_current >= 0),
inventory_minimum INTEGER CHECK (inventory_minimum >= 0),
inventory_package_size INTEGER CHECK (inventory_package_size > 0),
inventory_expiration_date TEXT,
created_at INTEGER NOT NULL,
updated_at INTEGER NOT NULL,
version INTEGER NOT NULL CHECK (version >= 1), strength_amount INTEGER CHECK (strength_amount > 0), strength_unit TEXT, maximum_doses_per_24h INTEGER
CHECK (maximum_doses_per_24h IS NULL OR maximum_doses_per_24h >= 1), deactivated_at INTEGER, inventory_declared INTEGER,
CHECK ((inventory_current IS NULL) = (inventory_minimum IS NULL))
)

-- table medication_refill on medication_refill
CREATE TABLE medication_refill (
rowid INTEGER PRIMARY KEY,
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
medication_id BLOB NOT NULL REFERENCES medication(id),
patient_id BLOB NOT NULL,
quantity INTEGER NOT NULL CHECK (quantity > 0),
refill_date TEXT NOT NULL,
expiration_date TEXT,
notes TEXT,
created_at INTEGER NOT NULL,
version INTEGER NOT NULL CHECK (version >= 1)
)

-- table medication_schedule on medication_schedule
CREATE TABLE medication_schedule (
rowid INTEGER PRIMARY KEY,
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
medication_id BLOB NOT NULL REFERENCES medication(id),
times TEXT NOT NULL,
time_labels TEXT,
days_of_week INTEGER NOT NULL CHECK (days_of_week BETWEEN 0 AND 127),
time_zone TEXT NOT NULL,
created_at INTEGER NOT NULL,
updated_at INTEGER NOT NULL,
version INTEGER NOT NULL CHECK (version >= 1)
, series_id BLOB, effective_from TEXT, effective_until TEXT, regimen TEXT, time_amounts TEXT, reminder_lead_minutes INTEGER NOT NULL DEFAULT 0, snooze_minutes INTEGER NOT NULL DEFAULT 10, maximum_snoozes INTEGER NOT NULL DEFAULT 3)

-- table medication_search on medication_search
CREATE VIRTUAL TABLE medication_search USING fts4(
name, generic_name, tokenize=unicode61 "remove_diacritics=1"
)

-- table medication_search_content on medication_search_content
CREATE TABLE 'medication_search_content'(docid INTEGER PRIMARY KEY, 'c0name', 'c1generic_name')

-- table medication_search_docsize on medication_search_docsize
CREATE TABLE 'medication_search_docsize'(docid INTEGER PRIMARY KEY, size BLOB)

-- table medication_search_segdir on medication_search_segdir
CREATE TABLE 'medication_search_segdir'(level INTEGER,idx INTEGER,start_block INTEGER,leaves_end_block INTEGER,end_block INTEGER,root BLOB,PRIMARY KEY(level, idx))

-- table medication_search_segments on medication_search_segments
CREATE TABLE 'medication_search_segments'(blockid INTEGER PRIMARY KEY, block BLOB)

-- table medication_search_stat on medication_search_stat
CREATE TABLE 'medication_search_stat'(id INTEGER PRIMARY KEY, value BLOB)

-- table medication_stock_adjustment on medication_stock_adjustment
CREATE TABLE medication_stock_adjustment (
rowid INTEGER PRIMARY KEY,
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
medication_id BLOB NOT NULL REFERENCES medication(id),
patient_id BLOB NOT NULL,
delta INTEGER NOT NULL,
recorded_at INTEGER NOT NULL,
version INTEGER NOT NULL CHECK (version >= 1)
)

-- table medvault_audit on medvault_audit
CREATE TABLE medvault_audit (
seq INTEGER PRIMARY KEY,
time INTEGER NOT NULL,
device INTEGER NOT NULL,
actor BLOB,
action NOT NULL,
entity_table,
entity_id BLOB,
mac BLOB NOT NULL
, origin BLOB)

-- table medvault_change on medvault_change
CREATE TABLE medvault_change (
seq INTEGER PRIMARY KEY,
table_name NOT NULL,
record_id BLOB NOT NULL,
operation NOT NULL,
version INTEGER,
hlc INTEGER NOT NULL,
device INTEGER NOT NULL
)

-- table medvault_device on medvault_device
CREATE TABLE medvault_device (
id INTEGER PRIMARY KEY,
device_id BLOB NOT NULL UNIQUE
)

-- table medvault_metadata on medvault_metadata
CREATE TABLE medvault_metadata (
key TEXT PRIMARY KEY NOT NULL,
value NOT NULL
)

-- table medvault_migrations on medvault_migrations
CREATE TABLE medvault_migrations (name TEXT NOT NULL PRIMARY KEY)

-- table patient on patient
CREATE TABLE patient (
rowid INTEGER PRIMARY KEY, -- the search index's docid
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
first_name TEXT NOT NULL,
last_name TEXT NOT NULL,
sort_key TEXT NOT NULL,
date_of_birth TEXT NOT NULL,
biological_sex TEXT,
national_id TEXT,
email TEXT,
phone_number TEXT,
address TEXT,
deleted_at INTEGER,
created_at INTEGER NOT NULL,
updated_at INTEGER NOT NULL,
version INTEGER NOT NULL
)

-- table patient_search_token on patient_search_token
CREATE TABLE patient_search_token (
token TEXT NOT NULL, -- one folded token (SearchText.tokens)
sort_key TEXT NOT NULL, -- = patient.sort_key
patient_id BLOB NOT NULL, -- = patient.id, the tie-break of patient order
patient_rowid INTEGER NOT NULL, -- = patient.rowid, to read the row
PRIMARY KEY (token, sort_key, patient_id)
) WITHOUT ROWID

-- table professional on professional
CREATE TABLE professional (
singleton INTEGER PRIMARY KEY CHECK (singleton = 1), -- one per vault
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
full_name TEXT NOT NULL,
license_number TEXT NOT NULL,
specialty TEXT NOT NULL,
email TEXT,
preferred_language TEXT NOT NULL,
created_at INTEGER NOT NULL,
updated_at INTEGER NOT NULL,
version INTEGER NOT NULL
)

-- table session_addendum on session_addendum
CREATE TABLE session_addendum (
position INTEGER PRIMARY KEY,
id BLOB NOT NULL UNIQUE CHECK (length(id) = 16),
session_id BLOB NOT NULL REFERENCES clinical_session(id),
author_id BLOB NOT NULL CHECK (length(author_id) = 16),
author_name TEXT NOT NULL,
created_at INTEGER NOT NULL,
reason TEXT NOT NULL,
text TEXT NOT NULL
)

-- table session_note_document on session_note_document
CREATE TABLE session_note_document (
docid INTEGER PRIMARY KEY,
session_id BLOB NOT NULL UNIQUE CHECK (length(session_id) = 16),
date_ms INTEGER NOT NULL -- = clinical_session.date_ms
)

-- table session_note_search on session_note_search
CREATE VIRTUAL TABLE session_note_search USING fts4(words, tokenize=unicode61 "remove_diacritics=1")

-- table session_note_search_content on session_note_search_content
CREATE TABLE 'session_note_search_content'(docid INTEGER PRIMARY KEY, 'c0words')

-- table session_note_search_docsize on session_note_search_docsize
CREATE TABLE 'session_note_search_docsize'(docid INTEGER PRIMARY KEY, size BLOB)

-- table session_note_search_segdir on session_note_search_segdir
CREATE TABLE 'session_note_search_segdir'(level INTEGER,idx INTEGER,start_block INTEGER,leaves_end_block INTEGER,end_block INTEGER,root BLOB,PRIMARY KEY(level, idx))

-- table session_note_search_segments on session_note_search_segments
CREATE TABLE 'session_note_search_segments'(blockid INTEGER PRIMARY KEY, block BLOB)

-- table session_note_search_stat on session_note_search_stat
CREATE TABLE 'session_note_search_stat'(id INTEGER PRIMARY KEY, value BLOB)

-- table session_signature on session_signature
CREATE TABLE session_signature (
session_id BLOB NOT NULL UNIQUE REFERENCES clinical_session(id),
professional_id BLOB NOT NULL CHECK (length(professional_id) = 16),
professional_name TEXT NOT NULL,
license_number TEXT NOT NULL,
signed_at INTEGER NOT NULL,
content_sha256 TEXT NOT NULL CHECK (length(content_sha256) = 64),
encoding_version INTEGER NOT NULL
, signer_public_key BLOB
CHECK (signer_public_key IS NULL OR length(signer_public_key) = 32), signature BLOB
CHECK ((signature IS NULL) = (signer_public_key IS NULL) AND (signature IS NULL OR length(signature) = 64)))

-- table signing_policy on signing_policy
CREATE TABLE signing_policy (
id INTEGER PRIMARY KEY CHECK (id = 1),
require_before_completion INTEGER NOT NULL CHECK (require_before_completion IN (0, 1))
)

-- table sqlite_sequence on sqlite_sequence
CREATE TABLE sqlite_sequence(name,seq)

-- table sync_attachment_chunk on sync_attachment_chunk
CREATE TABLE sync_attachment_chunk (
attachment_id BLOB NOT NULL CHECK (length(attachment_id) = 16),
seq INTEGER NOT NULL CHECK (seq >= 0),
data BLOB NOT NULL,
PRIMARY KEY (attachment_id, seq)
)

-- table sync_attachment_incoming on sync_attachment_incoming
CREATE TABLE sync_attachment_incoming (
attachment_id BLOB NOT NULL PRIMARY KEY CHECK (length(attachment_id) = 16)
) WITHOUT ROWID

-- table sync_attachment_resend on sync_attachment_resend
CREATE TABLE sync_attachment_resend (
attachment_id BLOB NOT NULL PRIMARY KEY CHECK (length(attachment_id) = 16)
) WITHOUT ROWID

-- table sync_conflict on sync_conflict
CREATE TABLE sync_conflict (
id BLOB NOT NULL PRIMARY KEY CHECK (length(id) = 16),
kind TEXT NOT NULL,
table_name TEXT NOT NULL,
record_id BLOB NOT NULL,
loser_hlc INTEGER NOT NULL,
loser_device BLOB NOT NULL,
loser_is_local INTEGER NOT NULL,
loser_state BLOB,
winner_hlc INTEGER NOT NULL,
winner_device BLOB NOT NULL,
detected_at INTEGER NOT NULL,
resolved_at INTEGER,
UNIQUE (table_name, record_id, loser_hlc, loser_device)
)

-- table sync_device_sequence on sync_device_sequence
CREATE TABLE sync_device_sequence (
device BLOB PRIMARY KEY CHECK (length(device) = 16),
highest INTEGER NOT NULL CHECK (highest >= 0),
missing TEXT NOT NULL DEFAULT '',
tracked INTEGER NOT NULL DEFAULT 1 CHECK (tracked IN (0, 1))
) WITHOUT ROWID

-- table sync_epoch_key on sync_epoch_key
CREATE TABLE sync_epoch_key (
epoch INTEGER PRIMARY KEY CHECK (epoch > 0),
key BLOB NOT NULL CHECK (length(key) = 32)
)

-- table sync_outbox on sync_outbox
CREATE TABLE "sync_outbox" (
position INTEGER PRIMARY KEY AUTOINCREMENT,
envelope_id BLOB NOT NULL CHECK (length(envelope_id) = 16),
record_key BLOB NOT NULL,
ciphertext BLOB NOT NULL,
epoch INTEGER NOT NULL DEFAULT 0 CHECK (epoch >= 0)
)

-- table sync_record_clock on sync_record_clock
CREATE TABLE sync_record_clock (
table_name TEXT NOT NULL,
record_id BLOB NOT NULL,
hlc INTEGER NOT NULL,
device_id BLOB NOT NULL,
PRIMARY KEY (table_name, record_id)
) WITHOUT ROWID

-- table sync_refused_envelope on sync_refused_envelope
CREATE TABLE sync_refused_envelope (
sequence INTEGER PRIMARY KEY CHECK (sequence > 0),
envelope_id BLOB NOT NULL CHECK (length(envelope_id) = 16),
code TEXT NOT NULL,
reason TEXT NOT NULL,
refused_at INTEGER NOT NULL
)

-- table sync_seal_plan on sync_seal_plan
CREATE TABLE sync_seal_plan (
first_seq INTEGER PRIMARY KEY,
last_seq INTEGER NOT NULL CHECK (last_seq >= first_seq)
)

-- table sync_state on sync_state
CREATE TABLE sync_state (
singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
vault_id BLOB CHECK (vault_id IS NULL OR length(vault_id) = 16),
device_id BLOB CHECK (device_id IS NULL OR length(device_id) = 16),
device_token TEXT,
sealed_through INTEGER NOT NULL DEFAULT 0,
pulled_through INTEGER NOT NULL DEFAULT 0,
keyring_generation INTEGER NOT NULL DEFAULT 0,
keyring_sha256 BLOB
, sync_secret BLOB CHECK (sync_secret IS NULL OR length(sync_secret) = 16), sync_secret_confirmed INTEGER NOT NULL DEFAULT 0 CHECK (sync_secret_confirmed IN (0, 1)), keyring_counter INTEGER NOT NULL DEFAULT 0 CHECK (keyring_counter >= 0), sealed_keyring_seen INTEGER NOT NULL DEFAULT 0 CHECK (sealed_keyring_seen IN (0, 1)), numbered_from INTEGER NOT NULL DEFAULT 0, device_key BLOB CHECK (device_key IS NULL OR length(device_key) = 32), pulled_epoch INTEGER NOT NULL DEFAULT 0 CHECK (pulled_epoch >= 0), first_epoch INTEGER NOT NULL DEFAULT 0 CHECK (first_epoch IN (0, 1)), certified_epoch INTEGER CHECK (certified_epoch IS NULL OR certified_epoch >= 0), sealing_through INTEGER NOT NULL DEFAULT 0)

-- table sync_unsent_record on sync_unsent_record
CREATE TABLE sync_unsent_record (
table_name TEXT NOT NULL,
record_id BLOB NOT NULL CHECK (length(record_id) = 16),
sequence INTEGER NOT NULL,
code TEXT NOT NULL,
reason TEXT NOT NULL,
PRIMARY KEY (table_name, record_id)
) WITHOUT ROWID

-- trigger attachment_chunk_sealed on attachment_chunk
CREATE TRIGGER attachment_chunk_sealed BEFORE INSERT ON attachment_chunk
WHEN (SELECT is_complete FROM attachment WHERE id = NEW.attachment_id) = 1 BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a stored attachment never changes');
END

-- trigger attachment_completed_session on attachment
CREATE TRIGGER attachment_completed_session BEFORE DELETE ON attachment
WHEN OLD.is_complete = 1
AND (SELECT status FROM clinical_session WHERE id = OLD.session_id) = 'completed' BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a completed session is part of the medical record');
END

-- trigger attachment_session_exists on attachment
CREATE TRIGGER attachment_session_exists BEFORE INSERT ON attachment
WHEN NOT EXISTS (SELECT 1 FROM clinical_session WHERE id = NEW.session_id) BEGIN
SELECT RAISE(ABORT, 'medvault: notFound: no such session');
END

-- trigger clinical_session_completed_kept on clinical_session
CREATE TRIGGER clinical_session_completed_kept BEFORE DELETE ON clinical_session
WHEN OLD.status = 'completed' BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a completed session is part of the medical record');
END

-- trigger clinical_session_completed_status on clinical_session
CREATE TRIGGER clinical_session_completed_status BEFORE UPDATE OF status ON clinical_session
WHEN OLD.status = 'completed' AND NEW.status IS NOT 'completed' BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a completed session is part of the medical record');
END

-- trigger clinical_session_patient_fixed on clinical_session
CREATE TRIGGER clinical_session_patient_fixed BEFORE UPDATE OF id, patient_id ON clinical_session
WHEN NEW.patient_id IS NOT OLD.patient_id OR NEW.id IS NOT OLD.id BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a session cannot move to another patient');
END

-- trigger clinical_session_signed_before_completion on clinical_session
CREATE TRIGGER clinical_session_signed_before_completion BEFORE UPDATE OF status ON clinical_session
WHEN NEW.status = 'completed' AND OLD.status IS NOT 'completed'
AND (SELECT require_before_completion FROM signing_policy WHERE id = 1) = 1
AND NOT EXISTS (SELECT 1 FROM session_signature WHERE session_id = OLD.id) BEGIN
SELECT RAISE(ABORT, 'medvault: validation: the session must be signed before it is completed');
END

-- trigger clinical_session_signed_content on clinical_session
CREATE TRIGGER clinical_session_signed_content
BEFORE UPDATE OF chief_complaint, notes, treatment_plan ON clinical_session
WHEN (NEW.chief_complaint IS NOT OLD.chief_complaint OR NEW.notes IS NOT OLD.notes
OR NEW.treatment_plan IS NOT OLD.treatment_plan)
AND EXISTS (SELECT 1 FROM session_signature WHERE session_id = OLD.id) BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a signed session''s content never changes');
END

-- trigger clinical_session_signed_kept on clinical_session
CREATE TRIGGER clinical_session_signed_kept BEFORE DELETE ON clinical_session
WHEN EXISTS (SELECT 1 FROM session_signature WHERE session_id = OLD.id) BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a signed session is part of the medical record');
END

-- trigger diagnosis_fixed on diagnosis
CREATE TRIGGER diagnosis_fixed INSTEAD OF UPDATE OF id, session_id, diagnosed_at ON diagnosis BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis keeps its session and date');
END

-- trigger diagnosis_insert on diagnosis
CREATE TRIGGER diagnosis_insert INSTEAD OF INSERT ON diagnosis BEGIN
INSERT INTO icd11_snapshot (release_version, code, uri, title, title_es)
SELECT NEW.release_version, NEW.code, NEW.uri, NEW.title, NEW.title_es
WHERE NOT EXISTS (SELECT 1 FROM icd11_snapshot WHERE release_version = NEW.release_version
AND code = NEW.code AND uri = NEW.uri AND title = NEW.title AND title_es IS NEW.title_es);
INSERT INTO diagnosis_row (id, session_id, snapshot_id, diagnosis_type, severity, diagnosed_at,
created_at, updated_at, version, clinical_notes)
VALUES (NEW.id, NEW.session_id,
(SELECT id FROM icd11_snapshot WHERE release_version = NEW.release_version
AND code = NEW.code AND uri = NEW.uri AND title = NEW.title AND title_es IS NEW.title_es),
NEW.diagnosis_type, NEW.severity, NEW.diagnosed_at,
NEW.created_at, NEW.updated_at, NEW.version, NEW.clinical_notes);
END

-- trigger diagnosis_never_deleted on diagnosis
CREATE TRIGGER diagnosis_never_deleted INSTEAD OF DELETE ON diagnosis BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis is part of the medical record');
END

-- trigger diagnosis_row_fixed on diagnosis_row
CREATE TRIGGER diagnosis_row_fixed
BEFORE UPDATE OF id, session_id, snapshot_id, diagnosed_at ON diagnosis_row BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis keeps its session, date and snapshot');
END

-- trigger diagnosis_row_never_deleted on diagnosis_row
CREATE TRIGGER diagnosis_row_never_deleted BEFORE DELETE ON diagnosis_row BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis is part of the medical record');
END

-- trigger diagnosis_row_signed_notes on diagnosis_row
CREATE TRIGGER diagnosis_row_signed_notes BEFORE UPDATE OF clinical_notes ON diagnosis_row
WHEN NEW.clinical_notes IS NOT OLD.clinical_notes
AND EXISTS (SELECT 1 FROM session_signature WHERE session_id = OLD.session_id) BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a signed session''s content never changes');
END

-- trigger diagnosis_snapshot_immutable on diagnosis
CREATE TRIGGER diagnosis_snapshot_immutable
INSTEAD OF UPDATE OF code, title, title_es, uri, release_version ON diagnosis BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis snapshot never changes');
END

-- trigger diagnosis_update on diagnosis
CREATE TRIGGER diagnosis_update
INSTEAD OF UPDATE OF diagnosis_type, severity, created_at, updated_at, version, clinical_notes
ON diagnosis BEGIN
UPDATE diagnosis_row SET diagnosis_type = NEW.diagnosis_type, severity = NEW.severity,
created_at = NEW.created_at, updated_at = NEW.updated_at, version = NEW.version,
clinical_notes = NEW.clinical_notes
WHERE id = OLD.id;
END

-- trigger dose_log_revision_no_delete on dose_log_revision
CREATE TRIGGER dose_log_revision_no_delete BEFORE DELETE ON dose_log_revision
BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a dose log revision cannot be deleted');
END

-- trigger dose_log_revision_no_update on dose_log_revision
CREATE TRIGGER dose_log_revision_no_update BEFORE UPDATE ON dose_log_revision
BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a dose log revision cannot change');
END

-- trigger icd11_snapshot_fixed on icd11_snapshot
CREATE TRIGGER icd11_snapshot_fixed BEFORE UPDATE ON icd11_snapshot BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis snapshot never changes');
END

-- trigger icd11_snapshot_kept on icd11_snapshot
CREATE TRIGGER icd11_snapshot_kept BEFORE DELETE ON icd11_snapshot BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis snapshot never changes');
END

-- trigger icd11_snapshot_not_replaced on icd11_snapshot
CREATE TRIGGER icd11_snapshot_not_replaced BEFORE INSERT ON icd11_snapshot
WHEN EXISTS (SELECT 1 FROM icd11_snapshot WHERE id = NEW.id
OR (release_version = NEW.release_version AND code = NEW.code AND uri = NEW.uri
AND title = NEW.title AND title_es IS NEW.title_es)) BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a diagnosis snapshot never changes');
END

-- trigger medication_keeps_its_patient on medication
CREATE TRIGGER medication_keeps_its_patient
BEFORE UPDATE OF patient_id ON medication
WHEN NEW.patient_id IS NOT OLD.patient_id
BEGIN
SELECT RAISE(ABORT, 'medvault: validation: a medication cannot move to another patient');
END

-- trigger medication_refill_no_delete on medication_refill
CREATE TRIGGER medication_refill_no_delete BEFORE DELETE ON medication_refill
BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a refill cannot be deleted');
END

-- trigger medication_refill_no_update on medication_refill
CREATE TRIGGER medication_refill_no_update BEFORE UPDATE ON medication_refill
BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a refill cannot change');
END

-- trigger medication_search_delete on medication
CREATE TRIGGER medication_search_delete AFTER DELETE ON medication
BEGIN
DELETE FROM medication_search WHERE docid = OLD.rowid;
END

-- trigger medication_search_insert on medication
CREATE TRIGGER medication_search_insert AFTER INSERT ON medication
BEGIN
INSERT INTO medication_search(docid, name, generic_name)
VALUES (NEW.rowid, NEW.name, NEW.generic_name);
END

-- trigger medication_search_update on medication
CREATE TRIGGER medication_search_update AFTER UPDATE OF name, generic_name ON medication
BEGIN
UPDATE medication_search SET name = NEW.name, generic_name = NEW.generic_name
WHERE docid = NEW.rowid;
END

-- trigger medication_stock_adjustment_no_delete on medication_stock_adjustment
CREATE TRIGGER medication_stock_adjustment_no_delete BEFORE DELETE ON medication_stock_adjustment
BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a stock adjustment cannot be deleted');
END

-- trigger medication_stock_adjustment_no_update on medication_stock_adjustment
CREATE TRIGGER medication_stock_adjustment_no_update BEFORE UPDATE ON medication_stock_adjustment
BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a stock adjustment cannot change');
END

-- trigger medvault_audit_no_delete on medvault_audit
CREATE TRIGGER medvault_audit_no_delete BEFORE DELETE ON medvault_audit
BEGIN SELECT RAISE(ABORT, 'medvault_audit is append-only'); END

-- trigger medvault_audit_no_update on medvault_audit
CREATE TRIGGER medvault_audit_no_update BEFORE UPDATE ON medvault_audit
BEGIN SELECT RAISE(ABORT, 'medvault_audit is append-only'); END

-- trigger patient_id_fixed on patient
CREATE TRIGGER patient_id_fixed BEFORE UPDATE OF rowid, id ON patient
WHEN NEW.id IS NOT OLD.id OR NEW.rowid IS NOT OLD.rowid BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a patient keeps its identifier');
END

-- trigger patient_never_deleted on patient
CREATE TRIGGER patient_never_deleted BEFORE DELETE ON patient BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a patient is never deleted, only deactivated');
END

-- trigger session_addendum_fixed on session_addendum
CREATE TRIGGER session_addendum_fixed BEFORE UPDATE ON session_addendum BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: an addendum never changes');
END

-- trigger session_addendum_kept on session_addendum
CREATE TRIGGER session_addendum_kept BEFORE DELETE ON session_addendum BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: an addendum is part of the medical record');
END

-- trigger session_note_document_date on clinical_session
CREATE TRIGGER session_note_document_date AFTER UPDATE OF date_ms ON clinical_session
WHEN NEW.date_ms IS NOT OLD.date_ms BEGIN
UPDATE session_note_document SET date_ms = NEW.date_ms WHERE session_id = NEW.id;
END

-- trigger session_note_search_delete on clinical_session
CREATE TRIGGER session_note_search_delete AFTER DELETE ON clinical_session BEGIN
DELETE FROM session_note_search
WHERE docid = (SELECT docid FROM session_note_document WHERE session_id = OLD.id);
DELETE FROM session_note_document WHERE session_id = OLD.id;
END

-- trigger session_signature_fixed on session_signature
CREATE TRIGGER session_signature_fixed BEFORE UPDATE ON session_signature BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a signature never changes');
END

-- trigger session_signature_kept on session_signature
CREATE TRIGGER session_signature_kept BEFORE DELETE ON session_signature BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: a signature is part of the medical record');
END

-- trigger signing_policy_kept on signing_policy
CREATE TRIGGER signing_policy_kept BEFORE DELETE ON signing_policy BEGIN
SELECT RAISE(ABORT, 'medvault: immutable: the signing setting is kept; update it instead');
END

-- view diagnosis on diagnosis
CREATE VIEW diagnosis AS
SELECT d.id AS id, d.session_id AS session_id, s.code AS code, s.title AS title,
s.title_es AS title_es, s.uri AS uri, s.release_version AS release_version,
d.diagnosis_type AS diagnosis_type, d.severity AS severity, d.diagnosed_at AS diagnosed_at,
d.created_at AS created_at, d.updated_at AS updated_at, d.version AS version,
d.clinical_notes AS clinical_notes
FROM diagnosis_row d JOIN icd11_snapshot s ON s.id = d.snapshot_id
