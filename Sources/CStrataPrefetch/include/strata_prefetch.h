#ifndef STRATA_PREFETCH_H
#define STRATA_PREFETCH_H

/// Asks the CPU to start loading the cache line holding `address` for reading, without waiting
/// for it and without faulting on any address (the compiler's prefetch builtin: PREFETCHT0 on
/// x86-64, PRFM on arm64). Swift has no equivalent; a scan uses it to load the rows it will test
/// next while it tests the current one.
static inline __attribute__((always_inline)) void strata_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
