#ifndef STRATA_CRC32C_H
#define STRATA_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU computes CRC-32C in hardware (x86-64 with SSE 4.2).
int strata_crc32c_hardware_available(void);

/// Continues the CRC-32C register `crc` (not inverted) over `count` bytes at `bytes`, with the
/// CPU's CRC-32C instruction. Call only when strata_crc32c_hardware_available() returns 1.
uint32_t strata_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count);

#endif
