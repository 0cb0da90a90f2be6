/* glibc's mallopt for the odatastore command (Sources/odatastore-cli/MallocSettings.swift).
 * Swift's Glibc module does not import <malloc.h>. Never used by the library: malloc's
 * settings are the whole process's, and the library shares its process with an application. */
#ifndef ODS_CMALLOC_SHIM_H
#define ODS_CMALLOC_SHIM_H
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
/* Returns 1 when glibc took every setting, 0 otherwise (or where there is no mallopt). */
static inline int ods_malloc_keep_freed_memory(int mmap_threshold, int trim_threshold) {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
#else
    (void)mmap_threshold; (void)trim_threshold;
    return 0;
#endif
}
#else
static inline int ods_malloc_keep_freed_memory(int mmap_threshold, int trim_threshold) {
    (void)mmap_threshold; (void)trim_threshold;
    return 0;
}
#endif
#endif
