#ifndef STRATA_MALLOC_COUNTER_H
#define STRATA_MALLOC_COUNTER_H

/// The number of heap allocations (malloc, calloc, realloc, memalign, posix_memalign,
/// aligned_alloc) made by every thread of the process since it started.
unsigned long strata_allocation_count(void);

/// 1 when allocations are counted; 0 in a sanitizer build, whose runtime owns the allocator.
int strata_allocation_counting(void);

#endif
