/* train.c - the header's quick start as a program: text -> counts -> SVD-SPPMI
   -> RO-SGNS -> word vectors, and one word-similarity score.
     cc -O2 -fopenmp examples/train.c -o train -lm
     ./train corpus.txt vectors.bin [min_count] [d] [pairs_file] */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    ro_sgns_count_config cc = ro_sgns_count_config_default();
    ro_sgns_counts *counts = NULL;
    ro_sgns_csr *sppmi = NULL;
    ro_sgns_factors *x = NULL;
    ro_sgns_problem *problem = NULL;
    ro_sgns_vectors *vec = NULL;
    ro_sgns_similarity_result sim;
    ro_sgns_error err;
    ro_sgns_real *W = NULL;
    size_t d = argc > 4 ? (size_t)atoi(argv[4]) : 100;
    int rc = 1;
    if (argc < 3) {
        fprintf(stderr, "usage: %s corpus.txt vectors.bin [min_count] [d] [pairs_file]\n", argv[0]);
        return 2;
    }
    cc.window = 5;
    cc.min_count = argc > 3 ? (uint64_t)atoi(argv[3]) : 200;
    if (ro_sgns_count_path(argv[1], &cc, &counts, NULL, &err)) goto fail;
    if (ro_sgns_sppmi(counts, 5.0, 1.0, &sppmi, NULL, &err)) goto fail; /* k = 5 */
    if (ro_sgns_tsvd(sppmi, d, NULL, &x, NULL, &err)) goto fail;      /* X0 */
    if (ro_sgns_problem_create(counts, 5.0, &problem, NULL, &err)) goto fail;
    if (ro_sgns_ro_train(problem, x, NULL, &err)) goto fail; /* 10 scaled steps */
    W = (ro_sgns_real *)malloc(counts->n * d * sizeof *W);
    if (!W) goto fail;
    if (ro_sgns_factors_embeddings(x, 0.5, RO_SGNS_EMBED_W, W, d, NULL, &err)) goto fail;
    if (ro_sgns_vectors_create(counts->n, d, (const char *const *)counts->vocab.word, W, d, &vec,
                               NULL, &err))
        goto fail;
    if (ro_sgns_vectors_save_path(vec, RO_SGNS_W2V_BINARY, argv[2], NULL, &err)) goto fail;
    printf("%lu words x %lu -> %s\n", (unsigned long)vec->n, (unsigned long)d, argv[2]);
    if (argc > 5 && ro_sgns_similarity_eval_path(vec, argv[5], NULL, &sim, NULL, &err) == 0)
        printf("%s: spearman %.3f (%lu of %lu pairs used)\n", argv[5], sim.spearman,
               (unsigned long)sim.pairs_used, (unsigned long)sim.pairs_total);
    rc = 0;
fail:
    if (rc) fprintf(stderr, "train: %s\n", err.message);
    free(W);
    ro_sgns_vectors_free(vec);
    ro_sgns_problem_free(problem);
    ro_sgns_factors_free(x);
    ro_sgns_csr_free(sppmi);
    ro_sgns_counts_free(counts);
    return rc;
}
