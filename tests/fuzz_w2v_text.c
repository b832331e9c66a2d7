/* fuzz_w2v_text.c - libFuzzer target for the word2vec text reader (and, with
   FUZZ_FORMAT defined first, for the binary and GloVe readers: see
   fuzz_w2v_bin.c, fuzz_glove.c). Not part of the default test run.
       clang -g -O1 -fsanitize=fuzzer,address,undefined tests/fuzz_w2v_text.c \
             -o build/fuzz_w2v_text -lm
       ./build/fuzz_w2v_text -max_total_time=20 build/corpus_w2v_text
   Checks beyond "no crash": an accepted file gives an object that keeps the
   invariants (words unique, findable, whitespace-free; values finite), that
   writes and reads back to the same bits, and whose limited read is a prefix;
   a rejected file gives an error code and a message. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT RO_SGNS_W2V_TEXT
#endif

static void fuzz_check_object(const ro_sgns_vectors *v)
{
    size_t i, j, row = 0;
    FUZZ_REQUIRE(v->n >= 1 && v->d >= 1 && v->d <= RO_SGNS_FILE_MAX_DIM && v->words && v->data);
    for (i = 0; i < v->n; ++i) {
        const char *w = v->words[i];
        FUZZ_REQUIRE(w[0] != '\0' && strlen(w) <= RO_SGNS_FILE_MAX_WORD);
        FUZZ_REQUIRE(strpbrk(w, " \t\n\v\f\r") == NULL);
        FUZZ_REQUIRE(ro_sgns_vectors_find(v, w, &row) == 1 && row == i);
        for (j = 0; j < v->d; ++j) {
            double x = (double)v->data[i * v->d + j];
            FUZZ_REQUIRE(x - x == 0);
        }
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    ro_sgns_vectors *v = NULL, *u = NULL;
    ro_sgns_error err;
    ro_sgns_result rc;
    void *buf;
    size_t len, limit;
    rc = ro_sgns_vectors_load_memory(data, size, FUZZ_FORMAT, 0, &v, NULL, &err);
    if (rc != RO_SGNS_OK) {
        FUZZ_REQUIRE(rc < 0 && err.code == rc && err.message[0] != '\0');
        FUZZ_REQUIRE(memchr(err.message, '\0', sizeof err.message) != NULL);
        return 0;
    }
    fuzz_check_object(v);
    /* write, read back: the same words and bits */
    FUZZ_REQUIRE(ro_sgns_vectors_save_memory(v, FUZZ_FORMAT, &buf, &len, NULL, &err) == RO_SGNS_OK);
    FUZZ_REQUIRE(ro_sgns_vectors_load_memory(buf, len, FUZZ_FORMAT, 0, &u, NULL, &err) ==
                 RO_SGNS_OK);
    FUZZ_REQUIRE(u->n == v->n && u->d == v->d);
    FUZZ_REQUIRE(memcmp(u->data, v->data, v->n * v->d * sizeof(ro_sgns_real)) == 0);
    for (len = 0; len < v->n; ++len) FUZZ_REQUIRE(strcmp(u->words[len], v->words[len]) == 0);
    ro_sgns_vectors_free(u);
    free(buf);
    /* a limited read of the same input is a prefix */
    limit = 1 + size % 3;
    if (ro_sgns_vectors_load_memory(data, size, FUZZ_FORMAT, limit, &u, NULL, &err) == RO_SGNS_OK) {
        FUZZ_REQUIRE(u->n == (v->n < limit ? v->n : limit) && u->d == v->d);
        FUZZ_REQUIRE(memcmp(u->data, v->data, u->n * u->d * sizeof(ro_sgns_real)) == 0);
        ro_sgns_vectors_free(u);
    } else {
        abort(); /* a prefix of an accepted file is accepted */
    }
    ro_sgns_vectors_free(v);
    return 0;
}
