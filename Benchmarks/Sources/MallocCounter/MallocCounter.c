// Counts heap allocations for the allocation figures of strata-bench: the executable defines the
// allocator entry points, so every library's calls land here, and forwards them to glibc's own
// implementations (the __libc_* aliases), adding one to a relaxed atomic counter.
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include "MallocCounter.h"

// Under a sanitizer the sanitizer's runtime owns the allocator entry points (CI builds this
// package with AddressSanitizer, in the library's scratch path, only to check that it compiles):
// nothing is interposed and nothing is counted, and the harness refuses the allocation figures.
#if defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#    define STRATA_MALLOC_COUNTER_DISABLED 1
#  endif
#endif

#ifdef STRATA_MALLOC_COUNTER_DISABLED

int strata_allocation_counting(void) { return 0; }
unsigned long strata_allocation_count(void) { return 0; }

#else

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static _Atomic unsigned long allocations = 0;

static inline void count(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

int strata_allocation_counting(void) { return 1; }
unsigned long strata_allocation_count(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t count_, size_t size) { count(); return __libc_calloc(count_, size); }
void *realloc(void *pointer, size_t size) { count(); return __libc_realloc(pointer, size); }
void free(void *pointer) { __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }

int posix_memalign(void **result, size_t alignment, size_t size) {
    count();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

#endif
