/* interop_gensim.c - the C side of tests/interop_gensim.sh.
     interop_gensim write PATH FORMAT   write a fixed set of vectors (UTF-8 words,
                                        awkward values) with ro_sgns_vectors_save_path
     interop_gensim dump PATH FORMAT    read a file with ro_sgns_vectors_load_path and
                                        print "n d", then per row the word and the
                                        float32 bits of each value in hex
     interop_gensim train TEXT PATH     SVD-SPPMI vectors of TEXT (d = 30, min count 5)
                                        to PATH, word2vec binary
     interop_gensim query PATH          the queries on standard input against the
                                        vectors at PATH (word2vec binary), one a line:
                                          sim A B                 similarity_of_words
                                          most N K P.. [-- M..]   most_similar of the
                                                                  positive P and negative
                                                                  M words, restrict_vocab
                                                                  N (0 = all), topn K
                                          odd W1 W2 ..            doesnt_match
                                        each answered on one line (words and
                                        cosines, "%.6f")
   FORMAT is text, bin or glove. The script prints the same dump and the same
   answers from gensim's KeyedVectors and compares the two. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_format(const char *s, ro_sgns_vectors_format *f)
{
    if (strcmp(s, "text") == 0)
        *f = RO_SGNS_W2V_TEXT;
    else if (strcmp(s, "bin") == 0)
        *f = RO_SGNS_W2V_BINARY;
    else if (strcmp(s, "glove") == 0)
        *f = RO_SGNS_GLOVE_TEXT;
    else
        return 0;
    return 1;
}

/* SVD-SPPMI on the text, W = U Sigma^0.5, saved as word2vec binary. */
static int train(const char *text, const char *path)
{
    ro_sgns_count_config cc = ro_sgns_count_config_default();
    ro_sgns_counts *counts = NULL;
    ro_sgns_csr *sppmi = NULL;
    ro_sgns_factors *x = NULL;
    ro_sgns_vectors *v = NULL;
    ro_sgns_real *W = NULL;
    ro_sgns_error err;
    const size_t d = 30;
    int ok = ro_sgns_count_path(text, &cc, &counts, NULL, &err) == RO_SGNS_OK &&
             ro_sgns_sppmi(counts, 5.0, 1.0, &sppmi, NULL, &err) == RO_SGNS_OK &&
             ro_sgns_tsvd(sppmi, d, NULL, &x, NULL, &err) == RO_SGNS_OK &&
             (W = (ro_sgns_real *)malloc(counts->n * d * sizeof *W)) != NULL &&
             ro_sgns_factors_embeddings(x, 0.5, RO_SGNS_EMBED_W, W, d, NULL, &err) == RO_SGNS_OK &&
             ro_sgns_vectors_create(counts->n, d, (const char *const *)counts->vocab.word, W, d,
                                    &v, NULL, &err) == RO_SGNS_OK &&
             ro_sgns_vectors_save_path(v, RO_SGNS_W2V_BINARY, path, NULL, &err) == RO_SGNS_OK;
    if (!ok) fprintf(stderr, "train: %s\n", W ? err.message : "no memory");
    ro_sgns_vectors_free(v);
    free(W);
    ro_sgns_factors_free(x);
    ro_sgns_csr_free(sppmi);
    ro_sgns_counts_free(counts);
    return ok ? 0 : 1;
}

/* One query line (its words in w[0 .. nw)), answered on stdout. */
static int answer(const ro_sgns_vectors *v, char **w, size_t nw)
{
    ro_sgns_neighbor nb[50];
    ro_sgns_error err;
    double sims[64];
    size_t i, found, which, sep = nw;
    if (nw == 3 && strcmp(w[0], "sim") == 0) {
        if (ro_sgns_similarity_of_words(v, w[1], w[2], &sims[0], &err) != RO_SGNS_OK) goto fail;
        printf("%.6f\n", sims[0]);
    } else if (nw >= 4 && strcmp(w[0], "most") == 0 && atoi(w[2]) > 0 && atoi(w[2]) <= 50) {
        ro_sgns_similar_query qy;
        for (i = 3; i < nw; ++i)
            if (strcmp(w[i], "--") == 0) sep = i;
        qy.positive = (const char *const *)w + 3, qy.npositive = sep - 3;
        qy.negative = (const char *const *)w + sep + (sep < nw);
        qy.nnegative = nw - sep - (sep < nw);
        qy.restrict_vocab = (size_t)atol(w[1]);
        if (ro_sgns_most_similar(v, &qy, (size_t)atoi(w[2]), nb, &found, NULL, &err) != RO_SGNS_OK)
            goto fail;
        for (i = 0; i < found; ++i)
            printf("%s%s %.6f", i ? " " : "", v->words[nb[i].row], nb[i].similarity);
        printf("\n");
    } else if (nw >= 2 && nw <= 65 && strcmp(w[0], "odd") == 0) {
        if (ro_sgns_doesnt_match(v, (const char *const *)w + 1, nw - 1, &which, sims, NULL, &err) !=
            RO_SGNS_OK)
            goto fail;
        printf("%s", w[1 + which]);
        for (i = 0; i + 1 < nw; ++i) printf(" %.6f", sims[i]);
        printf("\n");
    } else {
        fprintf(stderr, "query: cannot read '%s ...'\n", nw ? w[0] : "");
        return 1;
    }
    return 0;
fail:
    fprintf(stderr, "query %s: %s\n", w[0], err.message);
    return 1;
}

static int query(const char *path)
{
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    char line[4096], *w[70];
    int rc = 0;
    if (ro_sgns_vectors_load_path(path, RO_SGNS_W2V_BINARY, 0, &v, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "query: %s\n", err.message);
        return 1;
    }
    while (rc == 0 && fgets(line, sizeof line, stdin)) {
        size_t nw = 0;
        char *t = strtok(line, " \n");
        while (t && nw < 70) {
            w[nw++] = t;
            t = strtok(NULL, " \n");
        }
        rc = answer(v, w, nw);
    }
    ro_sgns_vectors_free(v);
    return rc;
}

int main(int argc, char **argv)
{
    ro_sgns_vectors *v = NULL;
    ro_sgns_vectors_format fmt;
    ro_sgns_error err;
    if (argc == 4 && strcmp(argv[1], "train") == 0) return train(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "query") == 0) return query(argv[2]);
    if (argc != 4 || !parse_format(argv[3], &fmt)) {
        fprintf(stderr, "usage: %s write|dump PATH text|bin|glove\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "write") == 0) {
        enum { N = 40, D = 9 };
        static char names[N][32];
        const char *words[N];
        ro_sgns_real x[N * D];
        ro_sgns_rng rng;
        size_t i;
        ro_sgns_rng_seed(&rng, 2024, 0);
        for (i = 0; i < N; ++i) {
            snprintf(names[i], sizeof names[i], "word%lu", (unsigned long)i);
            words[i] = names[i];
        }
        words[1] = "na\xc3\xafve";
        words[2] = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e";
        words[3] = "stra\xc3\x9f"
                   "e";
        words[4] = "\xf0\x9f\x98\x80";
        words[5] = "Caf\xc3\xa9";
        for (i = 0; i < N * D; ++i) x[i] = (ro_sgns_real)ro_sgns_rng_normal(&rng);
        x[0] = (ro_sgns_real)0.1;
        x[1] = (ro_sgns_real)-0.0;
        x[2] = (ro_sgns_real)1e-30;
        x[3] = (ro_sgns_real)3e38;
        x[4] = (ro_sgns_real)1.4e-45;
        x[5] = (ro_sgns_real)(1.0 / 3.0);
        if (ro_sgns_vectors_create(N, D, words, x, D, &v, NULL, &err) != RO_SGNS_OK ||
            ro_sgns_vectors_save_path(v, fmt, argv[2], NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "write: %s\n", err.message);
            return 1;
        }
    } else if (strcmp(argv[1], "dump") == 0) {
        size_t i, j;
        if (ro_sgns_vectors_load_path(argv[2], fmt, 0, &v, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "dump: %s\n", err.message);
            return 1;
        }
        printf("%lu %lu\n", (unsigned long)v->n, (unsigned long)v->d);
        for (i = 0; i < v->n; ++i) {
            printf("%s", v->words[i]);
            for (j = 0; j < v->d; ++j) {
                float f = (float)v->data[i * v->d + j];
                uint32_t u;
                memcpy(&u, &f, 4);
                printf(" %08lx", (unsigned long)u);
            }
            printf("\n");
        }
    } else {
        fprintf(stderr, "usage: %s write|dump PATH text|bin|glove\n", argv[0]);
        return 2;
    }
    ro_sgns_vectors_free(v);
    return 0;
}
