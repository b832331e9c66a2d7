/* tests/fuzz_counts_load.c - libFuzzer target for the counts-file loader,
   its row ranges, and the checkpoint loader. make check runs it for a few
   seconds (make fuzz-check); by hand:
       clang -g -O1 -fsanitize=fuzzer,address,undefined tests/fuzz_counts_load.c \
             -o build/fuzz_counts_load -lm
       mkdir -p build/fuzz_load_seeds
       RO_SGNS_FUZZ_SEEDS=build/fuzz_load_seeds ./build/fuzz_counts_load -runs=0 \
             build/fuzz_load_seeds                        # writes 4 seed files
       ./build/fuzz_counts_load -max_total_time=20 build/fuzz_load_seeds
   Checks: loading never crashes, leaks
   or allocates much more than the input; it returns OK or FORMAT (with an
   offset in the message); the buffer and a chunked reader agree; what
   loads saves back to the input bytes or, where loading changed them (a
   version 1 file, other chunks, values rounded to float), to a file that
   loads back the same; a row range of what loads is
   its slice. Since the CRCs refuse almost every mutation, each input is
   also tried with its version 2 checksums made right (tests/counts_file.h),
   so the structure checks behind them are reached. An input that starts
   like a checkpoint goes to the checkpoint loader. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"
#include "counts_file.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    /* RO_SGNS_FUZZ_SEEDS=dir: write a few valid counts files there */
    const char *dir = getenv("RO_SGNS_FUZZ_SEEDS");
    static const char *texts[] = {"a b c a b", "the cat sat on the mat\nthe dog sat\n",
                                  "x y x y x y z", "\xc3\xa9t\xc3\xa9 a \xc3\xa9t\xc3\xa9 b a"};
    int i;
    (void)argc;
    (void)argv;
    if (!dir) return 0;
    for (i = 0; i < 4; ++i) {
        ro_sgns_count_config cfg = ro_sgns_count_config_default();
        ro_sgns_counts *c = NULL;
        ro_sgns_error err;
        char path[512];
        cfg.min_count = 1;
        cfg.window = 1 + i;
        cfg.dynamic_window = i % 3;
        if (ro_sgns_count_memory(texts[i], strlen(texts[i]), &cfg, &c, NULL, &err) != RO_SGNS_OK)
            continue;
        snprintf(path, sizeof path, "%s/seed%d.counts", dir, i);
        ro_sgns_counts_save_path(c, path, &err);
        if (i == 0) { /* and a checkpoint */
            ro_sgns_factors *x = NULL;
            if (ro_sgns_factors_create(c->n, c->n, 1, &x, NULL, &err) == RO_SGNS_OK) {
                size_t j;
                for (j = 0; j < c->n; ++j) x->U[j] = x->V[j] = (ro_sgns_real)(j + 1);
                x->S[0] = 2;
                snprintf(path, sizeof path, "%s/seed.fx", dir);
                ro_sgns_factors_save_path(x, path, &err);
                ro_sgns_factors_free(x);
            }
        }
        ro_sgns_counts_free(c);
    }
    return 0;
}

static int same_slice(const ro_sgns_counts *r, const ro_sgns_counts *w, size_t r0, size_t r1)
{
    uint64_t base = w->row_ptr[r0], nnz = w->row_ptr[r1] - base;
    size_t i;
    if (r->n != w->n || r->nnz != nnz || r->row_begin != r0 || r->row_end != r1) return 0;
    for (i = 0; i <= r1 - r0; ++i)
        if (r->row_ptr[i] != w->row_ptr[r0 + i] - base) return 0;
    return nnz == 0 || (memcmp(r->col, w->col + base, (size_t)nnz * 4) == 0 &&
                        memcmp(r->val, w->val + base, (size_t)nnz * sizeof(float)) == 0);
}

static void one_counts(const unsigned char *data, size_t size);

/* The checkpoint loader: OK or FORMAT, nothing on failure. */
static void one_checkpoint(const unsigned char *data, size_t size)
{
    ro_sgns_factors *x = NULL;
    ro_sgns_error err;
    ro_sgns_result rc;
    tu_reader r = tu_reader_of(data, size, 1 + (size ? data[size - 1] % 50 : 0));
    rc = ro_sgns_factors_load_callback(tu_read, &r, &x, NULL, &err);
    FUZZ_REQUIRE(rc == RO_SGNS_OK || rc == RO_SGNS_ERR_FORMAT);
    FUZZ_REQUIRE((rc == RO_SGNS_OK) == (x != NULL));
    ro_sgns_factors_free(x);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size >= 8 && memcmp(data, "ROSGNSFX", 8) == 0) {
        one_checkpoint(data, size);
        return 0;
    }
    one_counts(data, size);
    /* the same with its version 2 checksums made right, when its header
       describes a file of exactly this size */
    if (size >= 124 && memcmp(data, "ROSGNSCT\x02\0\0\0", 12) == 0 &&
        tcf_get64(data + 16) < ((uint64_t)1 << 32) && tcf_get64(data + 24) < ((uint64_t)1 << 40) &&
        tcf_get64(data + 48) < ((uint64_t)1 << 40) && tcf_get32(data + 112) >= 8 &&
        tcf_get32(data + 112) <= 24 && tcf_layout_of(data).size == size) {
        unsigned char *c = (unsigned char *)malloc(size);
        memcpy(c, data, size);
        tcf_refresh(c);
        one_counts(c, size);
        free(c);
    }
    return 0;
}

static void one_counts(const unsigned char *data, size_t size)
{
    ro_sgns_counts *a = NULL, *b = NULL;
    ro_sgns_error err;
    ro_sgns_result rc, rc2;
    tu_reader r;
    rc = ro_sgns_counts_load_memory(data, size, &a, NULL, &err);
    FUZZ_REQUIRE(rc == RO_SGNS_OK || rc == RO_SGNS_ERR_FORMAT);
    FUZZ_REQUIRE((rc == RO_SGNS_OK) == (a != NULL));
    if (rc == RO_SGNS_ERR_FORMAT) FUZZ_REQUIRE(strstr(err.message, "offset") != NULL);
    r = tu_reader_of(data, size, 1 + (size ? data[size - 1] % 100 : 0));
    rc2 = ro_sgns_counts_load_callback(tu_read, &r, &b, NULL, &err);
    /* a stream stops at the checksum, so trailing bytes are not its error */
    FUZZ_REQUIRE(rc2 == RO_SGNS_OK || rc2 == RO_SGNS_ERR_FORMAT);
    if (rc == RO_SGNS_OK) FUZZ_REQUIRE(rc2 == RO_SGNS_OK);
    ro_sgns_counts_free(b);
    b = NULL;
    /* a row range from the last two bytes: what the whole load gives, or
       an error where the whole load failed */
    {
        size_t n = a ? a->n : 40, r0 = size > 1 ? data[size - 2] % (n + 1) : 0;
        size_t r1 = r0 + 1 + (size > 2 ? data[size - 3] % 8 : 0);
        rc2 = ro_sgns_counts_load_rows_memory(data, size, r0, r1, &b, NULL, &err);
        FUZZ_REQUIRE((rc2 == RO_SGNS_OK) == (b != NULL));
        FUZZ_REQUIRE(rc2 == RO_SGNS_OK || rc2 == RO_SGNS_ERR_FORMAT ||
                    rc2 == RO_SGNS_ERR_INVALID_ARGUMENT);
        if (rc == RO_SGNS_OK && r1 <= n) FUZZ_REQUIRE(rc2 == RO_SGNS_OK && same_slice(b, a, r0, r1));
        ro_sgns_counts_free(b);
    }
    if (rc == RO_SGNS_OK) {
        void *buf = NULL;
        size_t w = 0;
        FUZZ_REQUIRE(ro_sgns_counts_save_memory(a, &buf, &w, NULL, &err) == RO_SGNS_OK &&
                     w == (size_t)ro_sgns_counts_saved_size(a));
        /* the same bytes, unless the input was version 1, had other chunks
           or values no float holds (loading rounds them): then the same
           counts load back */
        if (!(w == size && memcmp(buf, data, size) == 0)) {
            FUZZ_REQUIRE(data[8] != 2 || tcf_get32(data + 112) != 16 || w == size);
            FUZZ_REQUIRE(ro_sgns_counts_load_memory(buf, w, &b, NULL, &err) == RO_SGNS_OK);
            FUZZ_REQUIRE(same_slice(b, a, 0, a->n) && b->total == a->total);
            ro_sgns_counts_free(b);
        }
        free(buf);
        ro_sgns_counts_free(a);
    }
}
