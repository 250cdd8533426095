#ifndef STRATA_MALLOC_COUNTER_H
#define STRATA_MALLOC_COUNTER_H

/// The number of heap allocations (malloc, calloc, realloc, memalign, posix_memalign,
/// aligned_alloc) made by every thread of the process since it started.
unsigned long strata_allocation_count(void);

#endif
