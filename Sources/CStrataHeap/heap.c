// The module is its header's inline function; SwiftPM needs one source file per C target.
#include "strata_heap.h"
