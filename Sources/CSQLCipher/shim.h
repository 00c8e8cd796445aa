#ifndef MEDVAULT_CSQLCIPHER_SHIM_H
#define MEDVAULT_CSQLCIPHER_SHIM_H

// SQLCipher's codec API (sqlite3_key, sqlite3_rekey) is only declared when
// SQLITE_HAS_CODEC is defined before the header is included.
#ifndef SQLITE_HAS_CODEC
#define SQLITE_HAS_CODEC 1
#endif
#include <sqlite3.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

// Asks OpenSSL, when SQLCipher runs on it, not to register its exit-time cleanup
// (OPENSSL_init_crypto with OPENSSL_INIT_NO_ATEXIT, 0x00080000 since OpenSSL 1.1.1).
// That cleanup, run by exit(), walks the thread-local state of every thread that used
// OpenSSL without a lock, while threads still ending (a vault's connection threads
// after lock(), the app's own) free theirs: a SIGSEGV at exit, about one run in three
// when threads end at that moment. The cleanup only frees memory the process is about
// to give back. The symbol is looked up in the process rather than linked, so that a
// SQLCipher built on another crypto library (CommonCrypto, NSS, libtomcrypt) needs no
// OpenSSL: there this returns 0 and does nothing. It takes effect only if it runs
// before OpenSSL's first initialisation in the process.
// Returns 1 when OpenSSL took the option.
static inline int medvault_openssl_skip_exit_cleanup(void) {
    void *process = dlopen(NULL, RTLD_LAZY);
    if (process == NULL) {
        return 0;
    }
    typedef int (*medvault_openssl_init_crypto)(uint64_t, const void *);
    medvault_openssl_init_crypto init =
        (medvault_openssl_init_crypto)dlsym(process, "OPENSSL_init_crypto");
    int result = init != NULL ? init(UINT64_C(0x00080000), NULL) : 0;
    dlclose(process);
    return result;
}

#endif
