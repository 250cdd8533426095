// CRC-32C with the CPU's instruction, for StrataStorage's CRC32C (which falls back to its own
// table-driven code where the instruction is missing). Written in C because Swift has no access to
// the SSE 4.2 crc32 instruction; the function is compiled for SSE 4.2 alone and called only after
// the CPU was checked, so the rest of the build keeps the baseline instruction set.
#include "strata_crc32c.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))

int strata_crc32c_hardware_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

__attribute__((target("sse4.2")))
uint32_t strata_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *next = bytes;
    while (count > 0 && ((uintptr_t)next & 7) != 0) {
        crc = __builtin_ia32_crc32qi(crc, *next++);
        count--;
    }
    uint64_t wide = crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, next, sizeof word);
        wide = __builtin_ia32_crc32di(wide, word);
        next += 8;
        count -= 8;
    }
    crc = (uint32_t)wide;
    while (count > 0) {
        crc = __builtin_ia32_crc32qi(crc, *next++);
        count--;
    }
    return crc;
}

#else

int strata_crc32c_hardware_available(void) { return 0; }

uint32_t strata_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}

#endif
