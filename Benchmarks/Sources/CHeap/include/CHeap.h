#ifndef CHEAP_H
#define CHEAP_H

#include <stddef.h>

/// Bytes currently allocated with malloc and not freed, over all arenas: glibc's
/// mallinfo2() uordblks (heap chunks in use) + hblkhd (chunks that got their own mmap).
/// Returns 0 where glibc is not the allocator. (Swift's Glibc module omits <malloc.h>,
/// hence this shim.)
size_t cheap_bytes_in_use(void);

#endif
