/* interop_gensim.c - the C side of tests/interop_gensim.sh.
     interop_gensim write PATH FORMAT   write a fixed set of vectors (UTF-8 words,
                                        awkward values) with ro_sgns_vectors_save_path
     interop_gensim dump PATH FORMAT    read a file with ro_sgns_vectors_load_path and
                                        print "n d", then per row the word and the
                                        float32 bits of each value in hex
   FORMAT is text, bin or glove. The script prints the same dump from gensim's
   KeyedVectors and compares the two. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <stdio.h>
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

int main(int argc, char **argv)
{
    ro_sgns_vectors *v = NULL;
    ro_sgns_vectors_format fmt;
    ro_sgns_error err;
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
