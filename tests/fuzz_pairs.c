/* fuzz_pairs.c - libFuzzer target for the word-pair reader and the analogy
   question reader: the first byte picks which (even: pairs, odd: questions),
   the rest is the file. Whatever is accepted is then evaluated against a
   small vocabulary under every policy. Not part of the default test run.
       clang -g -O1 -fsanitize=fuzzer,address,undefined tests/fuzz_pairs.c \
             -o build/fuzz_pairs -lm */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static const char *const words[] = {"a", "b", "c", "A", "dd", "e"};
    static const ro_sgns_real x[6 * 2] = {1, 0, 0, 1, 1, 1, -1, 0, 0.5f, 0.25f, 0, 0};
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    ro_sgns_result rc;
    size_t i;
    int pol;
    if (size == 0) return 0;
    FUZZ_REQUIRE(ro_sgns_vectors_create(6, 2, words, x, 2, &v, NULL, &err) == RO_SGNS_OK);
    if (data[0] % 2 == 0) {
        ro_sgns_pairs *p = NULL;
        ro_sgns_similarity_result r;
        rc = ro_sgns_pairs_load_memory(data + 1, size - 1, &p, NULL, &err);
        if (rc == RO_SGNS_OK) {
            FUZZ_REQUIRE(p->n >= 1);
            for (i = 0; i < p->n; ++i)
                FUZZ_REQUIRE(p->score[i] - p->score[i] == 0 && p->word1[i][0] && p->word2[i][0]);
            for (pol = 0; pol < 8; ++pol) {
                ro_sgns_similarity_config c = ro_sgns_similarity_config_default();
                c.oov = (pol & 1) ? RO_SGNS_OOV_ZERO : RO_SGNS_OOV_SKIP;
                c.fold_case = (pol >> 1) & 1;
                c.restrict_vocab = (pol & 4) ? 3 : 0;
                rc = ro_sgns_similarity_eval(v, p, &c, &r, NULL, &err);
                if (rc == RO_SGNS_OK) {
                    char line[300];
                    FUZZ_REQUIRE(r.spearman >= -1 && r.spearman <= 1 && r.pairs_used >= 2);
                    FUZZ_REQUIRE(r.pairs_total == p->n);
                    ro_sgns_similarity_describe(&r, line, sizeof line);
                } else {
                    FUZZ_REQUIRE(rc == RO_SGNS_ERR_EMPTY || rc == RO_SGNS_ERR_NUMERIC);
                }
            }
            ro_sgns_pairs_free(p);
        } else {
            FUZZ_REQUIRE(rc < 0 && err.code == rc && err.message[0]);
        }
    } else {
        ro_sgns_analogies *q = NULL;
        ro_sgns_analogy_result *r = NULL;
        rc = ro_sgns_analogies_load_memory(data + 1, size - 1, &q, NULL, &err);
        if (rc == RO_SGNS_OK) {
            FUZZ_REQUIRE(q->n >= 1 && q->nsections >= 1);
            for (i = 0; i < q->n; ++i) FUZZ_REQUIRE(q->section[i] < q->nsections);
            for (pol = 0; pol < 8; ++pol) {
                ro_sgns_analogy_config c = ro_sgns_analogy_config_default();
                c.method = (pol & 1) ? RO_SGNS_3COSMUL : RO_SGNS_3COSADD;
                c.fold_case = (pol >> 1) & 1;
                c.exclude_query_words = !((pol >> 2) & 1);
                FUZZ_REQUIRE(ro_sgns_analogy_eval(v, q, &c, &r, NULL, &err) == RO_SGNS_OK);
                FUZZ_REQUIRE(r->total == q->n && r->seen + r->skipped == r->total &&
                             r->correct <= r->seen);
                ro_sgns_analogy_result_free(r);
            }
            ro_sgns_analogies_free(q);
        } else {
            FUZZ_REQUIRE(rc < 0 && err.code == rc && err.message[0]);
        }
    }
    ro_sgns_vectors_free(v);
    return 0;
}
