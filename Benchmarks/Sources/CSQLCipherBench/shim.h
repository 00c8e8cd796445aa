#ifndef MEDVAULT_BENCH_CSQLCIPHER_SHIM_H
#define MEDVAULT_BENCH_CSQLCIPHER_SHIM_H

// The benchmark's own view of SQLCipher's C API. The root package's CSQLCipher is a
// target, not a product, and one package graph cannot hold two targets named alike,
// so the raw references import this module under another name. Same header, same
// library: the two modules declare the very same C functions.
//
// SQLCipher's codec API (sqlite3_key) is declared only when SQLITE_HAS_CODEC is set.
#ifndef SQLITE_HAS_CODEC
#define SQLITE_HAS_CODEC 1
#endif
#include <sqlite3.h>

#endif
