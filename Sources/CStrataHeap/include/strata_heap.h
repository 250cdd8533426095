#ifndef STRATA_HEAP_H
#define STRATA_HEAP_H

#include <malloc.h>

/// Sets glibc's heap trim threshold (`mallopt(M_TRIM_THRESHOLD, bytes)`): free memory at the top
/// of the heap is returned to the kernel only once more than `bytes` of it gather. Returns
/// whether glibc accepted it. `malloc.h` is not part of Swift's Glibc module, hence this shim.
static inline int strata_set_heap_trim_threshold(int bytes) {
    return mallopt(M_TRIM_THRESHOLD, bytes);
}

/// Returns the free memory of every heap arena to the kernel (`malloc_trim(0)`: the free pages in
/// the middle of the heap too, not only its top). Returns whether any memory was released.
static inline int strata_release_free_heap_memory(void) {
    return malloc_trim(0);
}

#endif
