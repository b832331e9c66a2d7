/* tests/fuzz_counts_load.c - libFuzzer target for the counts-file loader.
   Build and run (not part of the default test run):
       clang -g -O1 -fsanitize=fuzzer,address,undefined tests/fuzz_counts_load.c \
             -o build/fuzz_counts_load -lm
       mkdir -p build/fuzz_load_seeds
       RO_SGNS_FUZZ_SEEDS=build/fuzz_load_seeds ./build/fuzz_counts_load -runs=0 \
             build/fuzz_load_seeds                        # writes 4 seed files
       ./build/fuzz_counts_load -max_total_time=20 build/fuzz_load_seeds
   Checks: loading never crashes, leaks
   or allocates much more than the input; it returns OK or FORMAT (with an
   offset in the message); the buffer and a chunked reader agree; what
   loads saves back to exactly the input bytes. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"

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
        ro_sgns_counts_free(c);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    ro_sgns_counts *a = NULL, *b = NULL;
    ro_sgns_error err;
    ro_sgns_result rc, rc2;
    tu_reader r;
    rc = ro_sgns_counts_load_memory(data, size, &a, NULL, &err);
    FUZZ_REQUIRE(rc == RO_SGNS_OK || rc == RO_SGNS_ERR_FORMAT);
    FUZZ_REQUIRE((rc == RO_SGNS_OK) == (a != NULL));
    if (rc == RO_SGNS_ERR_FORMAT) FUZZ_REQUIRE(strstr(err.message, "offset") != NULL);
    r.p = data;
    r.size = size;
    r.at = 0;
    r.chunk = 1 + (size ? data[size - 1] % 100 : 0);
    r.fail_after = -1;
    rc2 = ro_sgns_counts_load_callback(tu_read, &r, &b, NULL, &err);
    /* a stream stops at the checksum, so trailing bytes are not its error */
    FUZZ_REQUIRE(rc2 == RO_SGNS_OK || rc2 == RO_SGNS_ERR_FORMAT);
    if (rc == RO_SGNS_OK) FUZZ_REQUIRE(rc2 == RO_SGNS_OK);
    ro_sgns_counts_free(b);
    if (rc == RO_SGNS_OK) {
        void *buf = NULL;
        size_t w = 0;
        FUZZ_REQUIRE((size_t)ro_sgns_counts_saved_size(a) == size);
        FUZZ_REQUIRE(ro_sgns_counts_save_memory(a, &buf, &w, NULL, &err) == RO_SGNS_OK);
        FUZZ_REQUIRE(w == size && memcmp(buf, data, size) == 0);
        free(buf);
        ro_sgns_counts_free(a);
    }
    return 0;
}
