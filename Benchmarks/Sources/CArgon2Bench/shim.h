#ifndef MEDVAULT_BENCH_CARGON2_SHIM_H
#define MEDVAULT_BENCH_CARGON2_SHIM_H

#include <argon2.h>

#endif
