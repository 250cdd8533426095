#ifndef STRATA_CLIBUV_SHIM_H
#define STRATA_CLIBUV_SHIM_H
#include <uv.h>
#endif
