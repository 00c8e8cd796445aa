#ifndef MEDVAULT_CSQLCIPHER_H
#define MEDVAULT_CSQLCIPHER_H

// MedVault's SQLCipher, kept private to MedVault in a process that also has the
// system SQLite (GRDB, any other user of libsqlite3): both export the same `sqlite3_*`
// symbols, and with both linked into one process one library's calls land in the
// other's functions (GRDB's first statement failed with SQLITE_MISUSE).
//
// So MedVault does not link SQLCipher. On Linux, `medvault_sqlcipher_load()` opens it
// with dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND): its symbols stay out of the
// process's global scope, and its own calls bind inside it even where the system
// SQLite was loaded first. Every call goes through the `medvault_sqlite3_*` functions
// below, which forward to the functions dlsym found in that library.
//
// Limits: RTLD_DEEPBIND is refused by AddressSanitizer and ThreadSanitizer, and makes
// SQLCipher's libcrypto use glibc's malloc where an app replaced it (jemalloc); musl has
// no RTLD_DEEPBIND (RTLD_LOCAL alone then). When the app itself links libsqlcipher,
// dlopen returns that copy and the app's link order decides. On Apple platforms (neither
// built nor tested here) the functions forward to the SQLCipher the app links, where a
// second SQLite in the same app would collide: not supported there yet.
//
// The declarations are SQLite's stable C API (sqlite.org/c3ref), written here rather
// than taken from sqlite3.h: a header found through pkg-config brings `-lsqlcipher`
// into every app's link line, which is the collision. Only what MedVault calls is
// declared; the constants' values are SQLite's (generated from SQLCipher's sqlite3.h).

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef int64_t sqlite3_int64;
typedef void (*sqlite3_destructor_type)(void *);

// Result codes.
#define SQLITE_OK                  0
#define SQLITE_ERROR               1
#define SQLITE_INTERNAL            2
#define SQLITE_PERM                3
#define SQLITE_ABORT               4
#define SQLITE_BUSY                5
#define SQLITE_LOCKED              6
#define SQLITE_NOMEM               7
#define SQLITE_READONLY            8
#define SQLITE_INTERRUPT           9
#define SQLITE_IOERR               10
#define SQLITE_CORRUPT             11
#define SQLITE_NOTFOUND            12
#define SQLITE_FULL                13
#define SQLITE_CANTOPEN            14
#define SQLITE_PROTOCOL            15
#define SQLITE_EMPTY               16
#define SQLITE_SCHEMA              17
#define SQLITE_TOOBIG              18
#define SQLITE_CONSTRAINT          19
#define SQLITE_MISMATCH            20
#define SQLITE_MISUSE              21
#define SQLITE_NOLFS               22
#define SQLITE_AUTH                23
#define SQLITE_FORMAT              24
#define SQLITE_RANGE               25
#define SQLITE_NOTADB              26
#define SQLITE_NOTICE              27
#define SQLITE_WARNING             28
#define SQLITE_ROW                 100
#define SQLITE_DONE                101

// Extended result codes MedVault tells apart.
#define SQLITE_IOERR_FSYNC         (SQLITE_IOERR | (4<<8))
#define SQLITE_CONSTRAINT_TRIGGER  (SQLITE_CONSTRAINT | (7<<8))

// Column types, open flags, checkpoint modes.
#define SQLITE_INTEGER             1
#define SQLITE_FLOAT               2
#define SQLITE_BLOB                4
#define SQLITE_NULL                5
#define SQLITE_TEXT                3
#define SQLITE_OPEN_READONLY       0x00000001
#define SQLITE_OPEN_READWRITE      0x00000002
#define SQLITE_OPEN_CREATE         0x00000004
#define SQLITE_OPEN_NOMUTEX        0x00008000
#define SQLITE_OPEN_FULLMUTEX      0x00010000
#define SQLITE_CHECKPOINT_PASSIVE  0
#define SQLITE_CHECKPOINT_FULL     1
#define SQLITE_CHECKPOINT_RESTART  2
#define SQLITE_CHECKPOINT_TRUNCATE 3

/// Opens SQLCipher once per process (later calls return the first result): 0 when every
/// function below is ready, -1 when the library or one of its functions is missing
/// (`medvault_sqlcipher_load_error()` says which). Call it before any other function of
/// this header; they must not be called when it failed.
int medvault_sqlcipher_load(void);

/// Why `medvault_sqlcipher_load()` failed (a static string), or NULL.
const char *medvault_sqlcipher_load_error(void);

/// Asks OpenSSL, when SQLCipher runs on it, not to register its exit-time cleanup
/// (OPENSSL_init_crypto with OPENSSL_INIT_NO_ATEXIT, 0x00080000 since OpenSSL 1.1.1).
/// That cleanup, run by exit(), walks the thread-local state of every thread that used
/// OpenSSL without a lock, while threads still ending (a vault's connection threads
/// after lock(), the app's own) free theirs: a SIGSEGV at exit, about one run in three
/// when threads end at that moment. The cleanup only frees memory the process is about
/// to give back. The symbol is looked up in SQLCipher's scope (its libcrypto), so a
/// SQLCipher built on another crypto library needs no OpenSSL: there this returns 0 and
/// does nothing. `medvault_sqlcipher_load()` asks it once, right after loading, before
/// SQLCipher's first call can initialise OpenSSL; this returns what OpenSSL answered: 1
/// when it took the option, 0 otherwise (or when SQLCipher could not be loaded).
int medvault_openssl_skip_exit_cleanup(void);

int medvault_sqlite3_bind_blob(sqlite3_stmt *s, int i, const void *v, int n, void (*d)(void *));
int medvault_sqlite3_bind_double(sqlite3_stmt *s, int i, double v);
int medvault_sqlite3_bind_int64(sqlite3_stmt *s, int i, sqlite3_int64 v);
int medvault_sqlite3_bind_null(sqlite3_stmt *s, int i);
int medvault_sqlite3_bind_parameter_count(sqlite3_stmt *s);
int medvault_sqlite3_bind_text(sqlite3_stmt *s, int i, const char *v, int n, void (*d)(void *));
int medvault_sqlite3_busy_timeout(sqlite3 *db, int ms);
int medvault_sqlite3_changes(sqlite3 *db);
int medvault_sqlite3_clear_bindings(sqlite3_stmt *s);
int medvault_sqlite3_close(sqlite3 *db);
int medvault_sqlite3_close_v2(sqlite3 *db);
const void *medvault_sqlite3_column_blob(sqlite3_stmt *s, int i);
int medvault_sqlite3_column_bytes(sqlite3_stmt *s, int i);
int medvault_sqlite3_column_count(sqlite3_stmt *s);
double medvault_sqlite3_column_double(sqlite3_stmt *s, int i);
sqlite3_int64 medvault_sqlite3_column_int64(sqlite3_stmt *s, int i);
const char *medvault_sqlite3_column_name(sqlite3_stmt *s, int i);
const unsigned char *medvault_sqlite3_column_text(sqlite3_stmt *s, int i);
int medvault_sqlite3_column_type(sqlite3_stmt *s, int i);
const char *medvault_sqlite3_db_filename(sqlite3 *db, const char *name);
const char *medvault_sqlite3_errmsg(sqlite3 *db);
const char *medvault_sqlite3_errstr(int code);
int medvault_sqlite3_exec(sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *context, char **error);
int medvault_sqlite3_extended_errcode(sqlite3 *db);
int medvault_sqlite3_extended_result_codes(sqlite3 *db, int on);
int medvault_sqlite3_finalize(sqlite3_stmt *s);
int medvault_sqlite3_get_autocommit(sqlite3 *db);
void medvault_sqlite3_interrupt(sqlite3 *db);
int medvault_sqlite3_key(sqlite3 *db, const void *key, int length);
sqlite3_int64 medvault_sqlite3_last_insert_rowid(sqlite3 *db);
int medvault_sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs);
int medvault_sqlite3_prepare_v2(sqlite3 *db, const char *sql, int length, sqlite3_stmt **statement, const char **tail);
void medvault_sqlite3_progress_handler(sqlite3 *db, int steps, int (*handler)(void *), void *context);
int medvault_sqlite3_rekey(sqlite3 *db, const void *key, int length);
int medvault_sqlite3_reset(sqlite3_stmt *s);
int medvault_sqlite3_step(sqlite3_stmt *s);
int medvault_sqlite3_stmt_readonly(sqlite3_stmt *s);
int medvault_sqlite3_system_errno(sqlite3 *db);
int medvault_sqlite3_total_changes(sqlite3 *db);
int medvault_sqlite3_wal_checkpoint_v2(sqlite3 *db, const char *name, int mode, int *log, int *checkpointed);
void *medvault_sqlite3_wal_hook(sqlite3 *db, int (*hook)(void *, sqlite3 *, const char *, int), void *context);

#ifdef __cplusplus
}
#endif

#endif
