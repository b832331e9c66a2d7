/* counts_file.h - the counts file format of ro_sgns.h (section 1, "The
   counts file"), written from its documentation and independently of the
   library's code, for the tests: a bit-at-a-time CRC-32C, the offsets of a
   version 2 file from its header, a function that recomputes a version 2
   file's checksums after a test has changed its bytes (so the loader's
   other checks can be reached), and a writer of version 1 files (the old
   format, which loaders must still read). Little-endian byte by byte, so
   the results are the same on every host. */
#ifndef RO_SGNS_TEST_COUNTS_FILE_H
#define RO_SGNS_TEST_COUNTS_FILE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TCF_UNUSED __attribute__((unused))
#else
#define TCF_UNUSED
#endif

/* CRC-32C a bit at a time: the polynomial 0x1EDC6F41 reflected. */
static TCF_UNUSED uint32_t tcf_crc32c(uint32_t crc, const unsigned char *p, size_t len)
{
    crc = ~crc;
    while (len--) {
        int b;
        crc ^= *p++;
        for (b = 0; b < 8; ++b) crc = (crc & 1u) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
}

static TCF_UNUSED uint64_t tcf_get64(const unsigned char *p)
{
    uint64_t x = 0;
    int i;
    for (i = 7; i >= 0; --i) x = x << 8 | p[i];
    return x;
}

static TCF_UNUSED uint32_t tcf_get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static TCF_UNUSED void tcf_put32(unsigned char *p, uint32_t x)
{
    int i;
    for (i = 0; i < 4; ++i) p[i] = (unsigned char)(x >> (8 * i));
}

static TCF_UNUSED void tcf_put64(unsigned char *p, uint64_t x)
{
    int i;
    for (i = 0; i < 8; ++i) p[i] = (unsigned char)(x >> (8 * i));
}

/* The sections of a version 2 file, from its header. */
typedef struct tcf_layout {
    uint64_t n, nnz, word_bytes;
    uint64_t vocab, row_ptr, col, val, word_count, ctx_count, data; /* offsets */
    uint64_t chunk, nchunks, size;
} tcf_layout;

static TCF_UNUSED tcf_layout tcf_layout_of(const unsigned char *buf)
{
    tcf_layout l;
    l.n = tcf_get64(buf + 16);
    l.nnz = tcf_get64(buf + 24);
    l.word_bytes = tcf_get64(buf + 48);
    l.vocab = 120;
    l.row_ptr = l.vocab + 12 * l.n + l.word_bytes;
    l.col = l.row_ptr + 8 * (l.n + 1);
    l.val = l.col + 4 * l.nnz;
    l.word_count = l.val + 8 * l.nnz;
    l.ctx_count = l.word_count + 8 * l.n;
    l.data = l.ctx_count + 8 * l.n;
    l.chunk = (uint64_t)1 << tcf_get32(buf + 112);
    l.nchunks = (l.data + l.chunk - 1) / l.chunk;
    l.size = l.data + 4 * l.nchunks + 4;
    return l;
}

/* Make a version 2 file's checksums right again: the header's CRC, every
   chunk's, the table's. */
static TCF_UNUSED void tcf_refresh(unsigned char *buf)
{
    tcf_layout l = tcf_layout_of(buf);
    uint64_t i;
    tcf_put32(buf + 116, tcf_crc32c(0, buf, 116));
    for (i = 0; i < l.nchunks; ++i) {
        uint64_t at = i * l.chunk, len = l.data - at < l.chunk ? l.data - at : l.chunk;
        tcf_put32(buf + l.data + 4 * i, tcf_crc32c(0, buf + at, (size_t)len));
    }
    tcf_put32(buf + l.data + 4 * l.nchunks,
              tcf_crc32c(0, buf + l.data, (size_t)(4 * l.nchunks)));
}

/* The version 1 checksum (section 1) of len bytes. */
static TCF_UNUSED uint64_t tcf_v1_hash(const unsigned char *p, size_t len)
{
    uint64_t h = 0x84222325CBF29CE4ull;
    size_t i;
    for (i = 0; i < len; i += 8) {
        uint64_t x = 0;
        size_t j;
        for (j = 0; j < 8 && i + j < len; ++j) x |= (uint64_t)p[i + j] << (8 * j);
        h = (h ^ x) * 0x100000001B3ull;
    }
    return (h ^ (uint64_t)len) * 0x100000001B3ull;
}

/* A version 1 file of the same counts as the version 2 file v2 (as the
   old writer made them: the 112-byte header, the data, the u64 checksum
   documented in section 1). Returns a malloc'ed buffer, its size in
   *size. */
static TCF_UNUSED unsigned char *tcf_v1_of(const unsigned char *v2, size_t *size)
{
    tcf_layout l = tcf_layout_of(v2);
    size_t body = (size_t)(l.data - 120), n = 112 + body + 8;
    unsigned char *out = (unsigned char *)malloc(n);
    if (!out) return NULL;
    memcpy(out, v2, 112);
    tcf_put32(out + 8, 1);
    memcpy(out + 112, v2 + 120, body);
    tcf_put64(out + 112 + body, tcf_v1_hash(out, 112 + body));
    *size = n;
    return out;
}

#endif
