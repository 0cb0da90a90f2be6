import CMalloc

/// glibc malloc's process-wide settings, which the command may set because it owns its
/// process (the library never does: it shares the process with an application).
///
/// Freed memory is kept for reuse rather than handed back to the kernel: blocks up to 64 MiB
/// come from malloc's heaps instead of their own `mmap` (`M_MMAP_THRESHOLD`), and a heap's
/// free top is returned only past 256 MiB (`M_TRIM_THRESHOLD`). A download allocates and frees
/// buffers of hundreds of KiB for every run of a page (the response's pieces, the run's
/// document, the decoder's output); with glibc's defaults many of them came back as fresh
/// pages, each faulted in and zeroed by the kernel again. With these settings an
/// `offline init` of 20,000 V2 entities takes about 1,000 fewer page faults (4,700 to 3,700)
/// and about 2 ms less system time, for about 2 MB more peak memory (docs/benchmarks.md).
/// The library's memory stays bounded as before: these settings change where freed memory
/// waits, not how much the library holds.
enum MallocSettings {
    /// Applies the settings once (thread-safe: a global's lazy initialization); true when glibc took them.
    static let applied: Bool = ods_malloc_keep_freed_memory(64 << 20, 256 << 20) != 0
}
