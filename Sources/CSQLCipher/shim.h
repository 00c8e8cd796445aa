#ifndef MEDVAULT_CSQLCIPHER_SHIM_H
#define MEDVAULT_CSQLCIPHER_SHIM_H

// SQLCipher's codec API (sqlite3_key, sqlite3_rekey) is only declared when
// SQLITE_HAS_CODEC is defined before the header is included.
#ifndef SQLITE_HAS_CODEC
#define SQLITE_HAS_CODEC 1
#endif
#include <sqlite3.h>

#endif
