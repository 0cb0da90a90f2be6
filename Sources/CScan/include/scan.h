/*
 * The structural bytes of a 64-byte block of JSON as bit masks, for the page splitter
 * (Sources/ODataProtocol/Payload/PageSplitter.swift): bit k of each mask is byte k of the block.
 * SSE2 (baseline on x86_64) compares 16 bytes at a time; elsewhere a portable byte loop gives
 * the same masks (ods_scan_block_portable, also compiled on x86_64 so the tests compare both).
 *
 * Header-only, static inline: nothing to link; the Swift compiler inlines them in release.
 * Pure functions of the bytes they are given; they read exactly 64 bytes (the tail variant
 * reads n < 64 and pads with zeros, which are no structural byte).
 */
#ifndef ODS_CSCAN_SCAN_H
#define ODS_CSCAN_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Where a block has quotes, backslashes, and brackets of either kind ({ [ and } ]). */
typedef struct {
    uint64_t quotes;
    uint64_t backslashes;
    uint64_t brackets;
} ods_scan_masks;

/* Byte by byte: the reference, and the code on architectures without SSE2. */
static inline ods_scan_masks ods_scan_block_portable(const uint8_t *p) {
    ods_scan_masks m = {0, 0, 0};
    for (int k = 0; k < 64; k++) {
        uint8_t c = p[k];
        uint8_t folded = (uint8_t)(c | 0x20); /* [ -> {, ] -> } */
        uint64_t bit = (uint64_t)1 << k;
        if (c == 0x22) m.quotes |= bit;
        if (c == 0x5C) m.backslashes |= bit;
        if (folded == 0x7B || folded == 0x7D) m.brackets |= bit;
    }
    return m;
}

#if defined(__SSE2__)
/* Sixteen bytes at a time: a compare per kind, its sign bits gathered by movemask. The four
 * brackets in one compare: c + 1 is 0x5C, 0x5E, 0x7C or 0x7E for them and only for them, the
 * values that OR 0x22 makes 0x7E. */
static inline ods_scan_masks ods_scan_block_sse2(const uint8_t *p) {
    const __m128i quote = _mm_set1_epi8(0x22);
    const __m128i backslash = _mm_set1_epi8(0x5C);
    const __m128i one = _mm_set1_epi8(1);
    const __m128i fold = _mm_set1_epi8(0x22);
    const __m128i bracket = _mm_set1_epi8(0x7E);
    ods_scan_masks m = {0, 0, 0};
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        __m128i brackets = _mm_cmpeq_epi8(_mm_or_si128(_mm_add_epi8(v, one), fold), bracket);
        m.quotes |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << (16 * k);
        m.backslashes |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)) << (16 * k);
        m.brackets |= (uint64_t)(uint16_t)_mm_movemask_epi8(brackets) << (16 * k);
    }
    return m;
}
#endif

/* The masks of p[0..<64]. */
static inline ods_scan_masks ods_scan_block(const uint8_t *p) {
#if defined(__SSE2__)
    return ods_scan_block_sse2(p);
#else
    return ods_scan_block_portable(p);
#endif
}

/* The masks of p[0..<n], n < 64 (the bits from n on are clear). */
static inline ods_scan_masks ods_scan_tail(const uint8_t *p, size_t n) {
    uint8_t block[64];
    memset(block, 0, sizeof block);
    memcpy(block, p, n < 64 ? n : 64);
    return ods_scan_block(block);
}

/* Whether ods_scan_block is the SSE2 one (for the tests' report). */
static inline int ods_scan_is_sse2(void) {
#if defined(__SSE2__)
    return 1;
#else
    return 0;
#endif
}

#endif
