// Loads SQLCipher privately and forwards MedVault's calls to it: see CSQLCipher.h.
#if defined(__linux__)
#define _GNU_SOURCE 1
#endif
#include "CSQLCipher.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

static struct {
    int (*bind_blob)(sqlite3_stmt *s, int i, const void *v, int n, void (*d)(void *));
    int (*bind_double)(sqlite3_stmt *s, int i, double v);
    int (*bind_int64)(sqlite3_stmt *s, int i, sqlite3_int64 v);
    int (*bind_null)(sqlite3_stmt *s, int i);
    int (*bind_parameter_count)(sqlite3_stmt *s);
    int (*bind_text)(sqlite3_stmt *s, int i, const char *v, int n, void (*d)(void *));
    int (*busy_timeout)(sqlite3 *db, int ms);
    int (*changes)(sqlite3 *db);
    int (*clear_bindings)(sqlite3_stmt *s);
    int (*close)(sqlite3 *db);
    int (*close_v2)(sqlite3 *db);
    const void *(*column_blob)(sqlite3_stmt *s, int i);
    int (*column_bytes)(sqlite3_stmt *s, int i);
    int (*column_count)(sqlite3_stmt *s);
    double (*column_double)(sqlite3_stmt *s, int i);
    sqlite3_int64 (*column_int64)(sqlite3_stmt *s, int i);
    const char *(*column_name)(sqlite3_stmt *s, int i);
    const unsigned char *(*column_text)(sqlite3_stmt *s, int i);
    int (*column_type)(sqlite3_stmt *s, int i);
    const char *(*db_filename)(sqlite3 *db, const char *name);
    const char *(*errmsg)(sqlite3 *db);
    const char *(*errstr)(int code);
    int (*exec)(sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *context, char **error);
    int (*extended_errcode)(sqlite3 *db);
    int (*extended_result_codes)(sqlite3 *db, int on);
    int (*finalize)(sqlite3_stmt *s);
    int (*get_autocommit)(sqlite3 *db);
    void (*interrupt)(sqlite3 *db);
    int (*key)(sqlite3 *db, const void *key, int length);
    sqlite3_int64 (*last_insert_rowid)(sqlite3 *db);
    int (*open_v2)(const char *filename, sqlite3 **db, int flags, const char *vfs);
    int (*prepare_v2)(sqlite3 *db, const char *sql, int length, sqlite3_stmt **statement, const char **tail);
    void (*progress_handler)(sqlite3 *db, int steps, int (*handler)(void *), void *context);
    int (*rekey)(sqlite3 *db, const void *key, int length);
    int (*reset)(sqlite3_stmt *s);
    int (*step)(sqlite3_stmt *s);
    int (*stmt_readonly)(sqlite3_stmt *s);
    int (*system_errno)(sqlite3 *db);
    int (*total_changes)(sqlite3 *db);
    int (*wal_checkpoint_v2)(sqlite3 *db, const char *name, int mode, int *log, int *checkpointed);
    void *(*wal_hook)(sqlite3 *db, int (*hook)(void *, sqlite3 *, const char *, int), void *context);
} api;

#if !defined(__linux__)
// Elsewhere SQLCipher is linked (two-level namespaces bind these to it): its functions.
extern int sqlite3_bind_blob(sqlite3_stmt *s, int i, const void *v, int n, void (*d)(void *));
extern int sqlite3_bind_double(sqlite3_stmt *s, int i, double v);
extern int sqlite3_bind_int64(sqlite3_stmt *s, int i, sqlite3_int64 v);
extern int sqlite3_bind_null(sqlite3_stmt *s, int i);
extern int sqlite3_bind_parameter_count(sqlite3_stmt *s);
extern int sqlite3_bind_text(sqlite3_stmt *s, int i, const char *v, int n, void (*d)(void *));
extern int sqlite3_busy_timeout(sqlite3 *db, int ms);
extern int sqlite3_changes(sqlite3 *db);
extern int sqlite3_clear_bindings(sqlite3_stmt *s);
extern int sqlite3_close(sqlite3 *db);
extern int sqlite3_close_v2(sqlite3 *db);
extern const void *sqlite3_column_blob(sqlite3_stmt *s, int i);
extern int sqlite3_column_bytes(sqlite3_stmt *s, int i);
extern int sqlite3_column_count(sqlite3_stmt *s);
extern double sqlite3_column_double(sqlite3_stmt *s, int i);
extern sqlite3_int64 sqlite3_column_int64(sqlite3_stmt *s, int i);
extern const char *sqlite3_column_name(sqlite3_stmt *s, int i);
extern const unsigned char *sqlite3_column_text(sqlite3_stmt *s, int i);
extern int sqlite3_column_type(sqlite3_stmt *s, int i);
extern const char *sqlite3_db_filename(sqlite3 *db, const char *name);
extern const char *sqlite3_errmsg(sqlite3 *db);
extern const char *sqlite3_errstr(int code);
extern int sqlite3_exec(sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *context, char **error);
extern int sqlite3_extended_errcode(sqlite3 *db);
extern int sqlite3_extended_result_codes(sqlite3 *db, int on);
extern int sqlite3_finalize(sqlite3_stmt *s);
extern int sqlite3_get_autocommit(sqlite3 *db);
extern void sqlite3_interrupt(sqlite3 *db);
extern int sqlite3_key(sqlite3 *db, const void *key, int length);
extern sqlite3_int64 sqlite3_last_insert_rowid(sqlite3 *db);
extern int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs);
extern int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int length, sqlite3_stmt **statement, const char **tail);
extern void sqlite3_progress_handler(sqlite3 *db, int steps, int (*handler)(void *), void *context);
extern int sqlite3_rekey(sqlite3 *db, const void *key, int length);
extern int sqlite3_reset(sqlite3_stmt *s);
extern int sqlite3_step(sqlite3_stmt *s);
extern int sqlite3_stmt_readonly(sqlite3_stmt *s);
extern int sqlite3_system_errno(sqlite3 *db);
extern int sqlite3_total_changes(sqlite3 *db);
extern int sqlite3_wal_checkpoint_v2(sqlite3 *db, const char *name, int mode, int *log, int *checkpointed);
extern void *sqlite3_wal_hook(sqlite3 *db, int (*hook)(void *, sqlite3 *, const char *, int), void *context);
#endif

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static const char *load_error = "SQLCipher was not loaded";
static int openssl_exit_cleanup_skipped = 0;
static char load_error_text[256];

#if defined(__linux__) && defined(RTLD_DEEPBIND)
#define MEDVAULT_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#else
// musl and bionic have no RTLD_DEEPBIND: RTLD_LOCAL still keeps SQLCipher's symbols out
// of the global scope, but its own calls may bind to another SQLite loaded first.
#define MEDVAULT_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL)
#endif

#if defined(__linux__)
// The names Debian and Ubuntu (libsqlcipher0) and other distributions install it under.
static const char *const library_names[] = {"libsqlcipher.so.0", "libsqlcipher.so"};
#endif

/// OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT), looked up in SQLCipher's scope.
static int skip_openssl_exit_cleanup(void *scope) {
    typedef int (*init_crypto_function)(uint64_t, const void *);
    init_crypto_function init_crypto;
    *(void **)&init_crypto = dlsym(scope, "OPENSSL_init_crypto");
    return init_crypto != NULL ? init_crypto(UINT64_C(0x00080000), NULL) : 0;
}

static void load(void) {
#if defined(__linux__)
    void *library = NULL;
    for (size_t index = 0; index < sizeof library_names / sizeof library_names[0] && library == NULL; index++) {
        library = dlopen(library_names[index], MEDVAULT_DLOPEN_FLAGS);
    }
    if (library == NULL) {
        // dlerror() names the library or the dependency that is missing (no user data).
        const char *why = dlerror();
        snprintf(load_error_text, sizeof load_error_text, "libsqlcipher.so.0 could not be loaded (install libsqlcipher0): %s",
                 why != NULL ? why : "unknown reason");
        load_error = load_error_text;
        return;
    }
#else
    void *library = dlopen(NULL, RTLD_NOW);
#endif
#if defined(__linux__)
    if ((*(void **)&api.bind_blob = dlsym(library, "sqlite3_bind_blob")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_bind_blob";
        return;
    }
    if ((*(void **)&api.bind_double = dlsym(library, "sqlite3_bind_double")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_bind_double";
        return;
    }
    if ((*(void **)&api.bind_int64 = dlsym(library, "sqlite3_bind_int64")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_bind_int64";
        return;
    }
    if ((*(void **)&api.bind_null = dlsym(library, "sqlite3_bind_null")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_bind_null";
        return;
    }
    if ((*(void **)&api.bind_parameter_count = dlsym(library, "sqlite3_bind_parameter_count")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_bind_parameter_count";
        return;
    }
    if ((*(void **)&api.bind_text = dlsym(library, "sqlite3_bind_text")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_bind_text";
        return;
    }
    if ((*(void **)&api.busy_timeout = dlsym(library, "sqlite3_busy_timeout")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_busy_timeout";
        return;
    }
    if ((*(void **)&api.changes = dlsym(library, "sqlite3_changes")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_changes";
        return;
    }
    if ((*(void **)&api.clear_bindings = dlsym(library, "sqlite3_clear_bindings")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_clear_bindings";
        return;
    }
    if ((*(void **)&api.close = dlsym(library, "sqlite3_close")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_close";
        return;
    }
    if ((*(void **)&api.close_v2 = dlsym(library, "sqlite3_close_v2")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_close_v2";
        return;
    }
    if ((*(void **)&api.column_blob = dlsym(library, "sqlite3_column_blob")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_column_blob";
        return;
    }
    if ((*(void **)&api.column_bytes = dlsym(library, "sqlite3_column_bytes")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_column_bytes";
        return;
    }
    if ((*(void **)&api.column_count = dlsym(library, "sqlite3_column_count")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_column_count";
        return;
    }
    if ((*(void **)&api.column_double = dlsym(library, "sqlite3_column_double")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_column_double";
        return;
    }
    if ((*(void **)&api.column_int64 = dlsym(library, "sqlite3_column_int64")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_column_int64";
        return;
    }
    if ((*(void **)&api.column_name = dlsym(library, "sqlite3_column_name")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_column_name";
        return;
    }
    if ((*(void **)&api.column_text = dlsym(library, "sqlite3_column_text")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_column_text";
        return;
    }
    if ((*(void **)&api.column_type = dlsym(library, "sqlite3_column_type")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_column_type";
        return;
    }
    if ((*(void **)&api.db_filename = dlsym(library, "sqlite3_db_filename")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_db_filename";
        return;
    }
    if ((*(void **)&api.errmsg = dlsym(library, "sqlite3_errmsg")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_errmsg";
        return;
    }
    if ((*(void **)&api.errstr = dlsym(library, "sqlite3_errstr")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_errstr";
        return;
    }
    if ((*(void **)&api.exec = dlsym(library, "sqlite3_exec")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_exec";
        return;
    }
    if ((*(void **)&api.extended_errcode = dlsym(library, "sqlite3_extended_errcode")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_extended_errcode";
        return;
    }
    if ((*(void **)&api.extended_result_codes = dlsym(library, "sqlite3_extended_result_codes")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_extended_result_codes";
        return;
    }
    if ((*(void **)&api.finalize = dlsym(library, "sqlite3_finalize")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_finalize";
        return;
    }
    if ((*(void **)&api.get_autocommit = dlsym(library, "sqlite3_get_autocommit")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_get_autocommit";
        return;
    }
    if ((*(void **)&api.interrupt = dlsym(library, "sqlite3_interrupt")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_interrupt";
        return;
    }
    if ((*(void **)&api.key = dlsym(library, "sqlite3_key")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_key";
        return;
    }
    if ((*(void **)&api.last_insert_rowid = dlsym(library, "sqlite3_last_insert_rowid")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_last_insert_rowid";
        return;
    }
    if ((*(void **)&api.open_v2 = dlsym(library, "sqlite3_open_v2")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_open_v2";
        return;
    }
    if ((*(void **)&api.prepare_v2 = dlsym(library, "sqlite3_prepare_v2")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_prepare_v2";
        return;
    }
    if ((*(void **)&api.progress_handler = dlsym(library, "sqlite3_progress_handler")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_progress_handler";
        return;
    }
    if ((*(void **)&api.rekey = dlsym(library, "sqlite3_rekey")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_rekey";
        return;
    }
    if ((*(void **)&api.reset = dlsym(library, "sqlite3_reset")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_reset";
        return;
    }
    if ((*(void **)&api.step = dlsym(library, "sqlite3_step")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_step";
        return;
    }
    if ((*(void **)&api.stmt_readonly = dlsym(library, "sqlite3_stmt_readonly")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_stmt_readonly";
        return;
    }
    if ((*(void **)&api.system_errno = dlsym(library, "sqlite3_system_errno")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_system_errno";
        return;
    }
    if ((*(void **)&api.total_changes = dlsym(library, "sqlite3_total_changes")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_total_changes";
        return;
    }
    if ((*(void **)&api.wal_checkpoint_v2 = dlsym(library, "sqlite3_wal_checkpoint_v2")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_wal_checkpoint_v2";
        return;
    }
    if ((*(void **)&api.wal_hook = dlsym(library, "sqlite3_wal_hook")) == NULL) {
        load_error = "SQLCipher lacks sqlite3_wal_hook";
        return;
    }
#else
    api.bind_blob = sqlite3_bind_blob;
    api.bind_double = sqlite3_bind_double;
    api.bind_int64 = sqlite3_bind_int64;
    api.bind_null = sqlite3_bind_null;
    api.bind_parameter_count = sqlite3_bind_parameter_count;
    api.bind_text = sqlite3_bind_text;
    api.busy_timeout = sqlite3_busy_timeout;
    api.changes = sqlite3_changes;
    api.clear_bindings = sqlite3_clear_bindings;
    api.close = sqlite3_close;
    api.close_v2 = sqlite3_close_v2;
    api.column_blob = sqlite3_column_blob;
    api.column_bytes = sqlite3_column_bytes;
    api.column_count = sqlite3_column_count;
    api.column_double = sqlite3_column_double;
    api.column_int64 = sqlite3_column_int64;
    api.column_name = sqlite3_column_name;
    api.column_text = sqlite3_column_text;
    api.column_type = sqlite3_column_type;
    api.db_filename = sqlite3_db_filename;
    api.errmsg = sqlite3_errmsg;
    api.errstr = sqlite3_errstr;
    api.exec = sqlite3_exec;
    api.extended_errcode = sqlite3_extended_errcode;
    api.extended_result_codes = sqlite3_extended_result_codes;
    api.finalize = sqlite3_finalize;
    api.get_autocommit = sqlite3_get_autocommit;
    api.interrupt = sqlite3_interrupt;
    api.key = sqlite3_key;
    api.last_insert_rowid = sqlite3_last_insert_rowid;
    api.open_v2 = sqlite3_open_v2;
    api.prepare_v2 = sqlite3_prepare_v2;
    api.progress_handler = sqlite3_progress_handler;
    api.rekey = sqlite3_rekey;
    api.reset = sqlite3_reset;
    api.step = sqlite3_step;
    api.stmt_readonly = sqlite3_stmt_readonly;
    api.system_errno = sqlite3_system_errno;
    api.total_changes = sqlite3_total_changes;
    api.wal_checkpoint_v2 = sqlite3_wal_checkpoint_v2;
    api.wal_hook = sqlite3_wal_hook;
#endif
    // Before SQLCipher's first call initialises OpenSSL.
    openssl_exit_cleanup_skipped = library != NULL ? skip_openssl_exit_cleanup(library) : 0;
    load_error = NULL;
    load_status = 0;
}

int medvault_sqlcipher_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

const char *medvault_sqlcipher_load_error(void) {
    pthread_once(&load_once, load);
    return load_error;
}

int medvault_openssl_skip_exit_cleanup(void) {
    pthread_once(&load_once, load);
    return openssl_exit_cleanup_skipped;
}

int medvault_sqlite3_bind_blob(sqlite3_stmt *s, int i, const void *v, int n, void (*d)(void *)) { return api.bind_blob(s, i, v, n, d); }
int medvault_sqlite3_bind_double(sqlite3_stmt *s, int i, double v) { return api.bind_double(s, i, v); }
int medvault_sqlite3_bind_int64(sqlite3_stmt *s, int i, sqlite3_int64 v) { return api.bind_int64(s, i, v); }
int medvault_sqlite3_bind_null(sqlite3_stmt *s, int i) { return api.bind_null(s, i); }
int medvault_sqlite3_bind_parameter_count(sqlite3_stmt *s) { return api.bind_parameter_count(s); }
int medvault_sqlite3_bind_text(sqlite3_stmt *s, int i, const char *v, int n, void (*d)(void *)) { return api.bind_text(s, i, v, n, d); }
int medvault_sqlite3_busy_timeout(sqlite3 *db, int ms) { return api.busy_timeout(db, ms); }
int medvault_sqlite3_changes(sqlite3 *db) { return api.changes(db); }
int medvault_sqlite3_clear_bindings(sqlite3_stmt *s) { return api.clear_bindings(s); }
int medvault_sqlite3_close(sqlite3 *db) { return api.close(db); }
int medvault_sqlite3_close_v2(sqlite3 *db) { return api.close_v2(db); }
const void *medvault_sqlite3_column_blob(sqlite3_stmt *s, int i) { return api.column_blob(s, i); }
int medvault_sqlite3_column_bytes(sqlite3_stmt *s, int i) { return api.column_bytes(s, i); }
int medvault_sqlite3_column_count(sqlite3_stmt *s) { return api.column_count(s); }
double medvault_sqlite3_column_double(sqlite3_stmt *s, int i) { return api.column_double(s, i); }
sqlite3_int64 medvault_sqlite3_column_int64(sqlite3_stmt *s, int i) { return api.column_int64(s, i); }
const char *medvault_sqlite3_column_name(sqlite3_stmt *s, int i) { return api.column_name(s, i); }
const unsigned char *medvault_sqlite3_column_text(sqlite3_stmt *s, int i) { return api.column_text(s, i); }
int medvault_sqlite3_column_type(sqlite3_stmt *s, int i) { return api.column_type(s, i); }
const char *medvault_sqlite3_db_filename(sqlite3 *db, const char *name) { return api.db_filename(db, name); }
const char *medvault_sqlite3_errmsg(sqlite3 *db) { return api.errmsg(db); }
const char *medvault_sqlite3_errstr(int code) { return medvault_sqlcipher_load() == 0 ? api.errstr(code) : "SQLCipher is not loaded"; }
int medvault_sqlite3_exec(sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *context, char **error) { return api.exec(db, sql, callback, context, error); }
int medvault_sqlite3_extended_errcode(sqlite3 *db) { return api.extended_errcode(db); }
int medvault_sqlite3_extended_result_codes(sqlite3 *db, int on) { return api.extended_result_codes(db, on); }
int medvault_sqlite3_finalize(sqlite3_stmt *s) { return api.finalize(s); }
int medvault_sqlite3_get_autocommit(sqlite3 *db) { return api.get_autocommit(db); }
void medvault_sqlite3_interrupt(sqlite3 *db) { api.interrupt(db); }
int medvault_sqlite3_key(sqlite3 *db, const void *key, int length) { return api.key(db, key, length); }
sqlite3_int64 medvault_sqlite3_last_insert_rowid(sqlite3 *db) { return api.last_insert_rowid(db); }
int medvault_sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs) {
    if (medvault_sqlcipher_load() != 0) {
        *db = NULL;
        return SQLITE_CANTOPEN;
    }
    return api.open_v2(filename, db, flags, vfs);
}
int medvault_sqlite3_prepare_v2(sqlite3 *db, const char *sql, int length, sqlite3_stmt **statement, const char **tail) { return api.prepare_v2(db, sql, length, statement, tail); }
void medvault_sqlite3_progress_handler(sqlite3 *db, int steps, int (*handler)(void *), void *context) { api.progress_handler(db, steps, handler, context); }
int medvault_sqlite3_rekey(sqlite3 *db, const void *key, int length) { return api.rekey(db, key, length); }
int medvault_sqlite3_reset(sqlite3_stmt *s) { return api.reset(s); }
int medvault_sqlite3_step(sqlite3_stmt *s) { return api.step(s); }
int medvault_sqlite3_stmt_readonly(sqlite3_stmt *s) { return api.stmt_readonly(s); }
int medvault_sqlite3_system_errno(sqlite3 *db) { return api.system_errno(db); }
int medvault_sqlite3_total_changes(sqlite3 *db) { return api.total_changes(db); }
int medvault_sqlite3_wal_checkpoint_v2(sqlite3 *db, const char *name, int mode, int *log, int *checkpointed) { return api.wal_checkpoint_v2(db, name, mode, log, checkpointed); }
void *medvault_sqlite3_wal_hook(sqlite3 *db, int (*hook)(void *, sqlite3 *, const char *, int), void *context) { return api.wal_hook(db, hook, context); }
