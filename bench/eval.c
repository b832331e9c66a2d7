/* bench/eval.c - how long the file formats and the evaluation take at the
   paper's size: 25,000 words x 500 dimensions.
     cc -O3 -march=native -DBENCH_FLAGS="\"-O3 -march=native\"" bench/eval.c \
        -o build/bench_eval -lm
     ./build/bench_eval [WORDSIM_DIR [RESULTS.md]]
   (defaults ../shared/data/wordsim and wip/eval_RESULTS.md; run from the
   repository root). It makes random vectors whose vocabulary starts with
   every word of the similarity sets (so all pairs are covered) and goes on
   with made-up words, writes them to build/eval_bench.{bin,txt}, and times:
   writing and loading both formats; the full similarity suite (five files,
   each loaded and evaluated); a synthetic analogy suite of 20,000 questions
   over the whole vocabulary (3CosAdd and 3CosMul; no analogy file ships);
   nearest neighbours, batched and one word at a time. The numbers go to
   RESULTS.md with the CPU, compiler and flags. */
#define _POSIX_C_SOURCE 200809L
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BENCH_FLAGS
#define BENCH_FLAGS "(not given: compile with -DBENCH_FLAGS=\"\\\"...\\\"\")"
#endif

#define N_WORDS 25000
#define DIM 500
#define N_QUESTIONS 20000
#define N_SECTIONS 14

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (f) fclose(f);
    return n;
}

static void cpu_name(char *buf, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, size, "unknown CPU");
    if (!f) return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                p += 2;
                p[strcspn(p, "\n")] = '\0';
                snprintf(buf, size, "%s", p);
            }
            break;
        }
    fclose(f);
}

#define DIE(what)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "bench_eval: %s: %s\n", what, err.message);                                \
        return 1;                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/data/wordsim";
    const char *out_path = argc > 2 ? argv[2] : "wip/eval_RESULTS.md";
    const char *sets[] = {"ws353.txt", "ws353_sim.txt", "ws353_rel.txt", "simlex999.txt",
                          "men.txt"};
    const char *bin_path = "build/eval_bench.bin", *txt_path = "build/eval_bench.txt";
    char path[512], cpu[256], line[512], lines[5][512];
    char **words = (char **)malloc(N_WORDS * sizeof(char *));
    ro_sgns_real *x = (ro_sgns_real *)malloc((size_t)N_WORDS * DIM * sizeof(ro_sgns_real));
    ro_sgns_vectors *v = NULL, *u = NULL;
    ro_sgns_pairs *p = NULL;
    ro_sgns_analogies *q = NULL;
    ro_sgns_similarity_result sr;
    ro_sgns_analogy_result *ar = NULL;
    ro_sgns_analogy_config ac;
    ro_sgns_error err;
    ro_sgns_rng rng;
    size_t n = 0, nsim, i, j, k, pairs_total = 0, nq_nb = 1000, found;
    double t, t_wbin, t_wtxt, t_lbin = 1e30, t_ltxt = 1e30, t_sim = 1e30, t_add, t_mul, t_nb, t_nb1;
    char *qfile;
    size_t qlen = 0;
    ro_sgns_real *queries;
    ro_sgns_neighbor *nb;
    FILE *f;
    if (!words || !x) return 1;

    /* 1. vocabulary: the similarity sets' words, then made-up ones */
    for (k = 0; k < 5; ++k) {
        snprintf(path, sizeof path, "%s/%s", dir, sets[k]);
        if (ro_sgns_pairs_load_path(path, &p, NULL, &err) != RO_SGNS_OK) DIE("pair file");
        for (i = 0; i < p->n; ++i) {
            const char *w[2];
            w[0] = p->word1[i];
            w[1] = p->word2[i];
            for (j = 0; j < 2; ++j) {
                size_t r, dup = 0;
                for (r = 0; r < n && !dup; ++r) dup = strcmp(words[r], w[j]) == 0;
                if (!dup && n < N_WORDS) {
                    words[n] = (char *)malloc(strlen(w[j]) + 1);
                    strcpy(words[n++], w[j]);
                }
            }
        }
        ro_sgns_pairs_free(p);
    }
    nsim = n;
    printf("bench_eval: %lu words from the similarity sets\n", (unsigned long)nsim);
    for (i = 0; n < N_WORDS; ++i) {
        words[n] = (char *)malloc(16);
        snprintf(words[n++], 16, "tok%05lu", (unsigned long)i);
    }
    ro_sgns_rng_seed(&rng, 12345, 0);
    for (i = 0; i < (size_t)N_WORDS * DIM; ++i) x[i] = (ro_sgns_real)ro_sgns_rng_normal(&rng);
    if (ro_sgns_vectors_create(N_WORDS, DIM, (const char *const *)words, x, DIM, &v, NULL, &err) !=
        RO_SGNS_OK)
        DIE("create");

    /* 2. write and load both formats */
    t = now();
    if (ro_sgns_vectors_save_path(v, RO_SGNS_W2V_BINARY, bin_path, NULL, &err) != RO_SGNS_OK)
        DIE("save bin");
    t_wbin = now() - t;
    t = now();
    if (ro_sgns_vectors_save_path(v, RO_SGNS_W2V_TEXT, txt_path, NULL, &err) != RO_SGNS_OK)
        DIE("save txt");
    t_wtxt = now() - t;
    for (k = 0; k < 3; ++k) {
        t = now();
        if (ro_sgns_vectors_load_path(bin_path, RO_SGNS_W2V_BINARY, 0, &u, NULL, &err) !=
            RO_SGNS_OK)
            DIE("load bin");
        t = now() - t;
        if (t < t_lbin) t_lbin = t;
        if (k == 0 &&
            (u->n != v->n || (sizeof(ro_sgns_real) == sizeof(float) &&
                              memcmp(u->data, v->data, v->n * v->d * sizeof(ro_sgns_real)) != 0)))
            fprintf(stderr, "bench_eval: binary round trip differs\n");
        ro_sgns_vectors_free(u);
        t = now();
        if (ro_sgns_vectors_load_path(txt_path, RO_SGNS_W2V_TEXT, 0, &u, NULL, &err) != RO_SGNS_OK)
            DIE("load txt");
        t = now() - t;
        if (t < t_ltxt) t_ltxt = t;
        ro_sgns_vectors_free(u);
    }
    printf("bench_eval: write bin %.3f s, text %.3f s; load bin %.3f s, text %.3f s\n", t_wbin,
           t_wtxt, t_lbin, t_ltxt);

    /* 3. the similarity suite: load + evaluate the five files (best of 5) */
    for (k = 0; k < 5; ++k) {
        t = now();
        pairs_total = 0;
        for (i = 0; i < 5; ++i) {
            snprintf(path, sizeof path, "%s/%s", dir, sets[i]);
            if (ro_sgns_similarity_eval_path(v, path, NULL, &sr, NULL, &err) != RO_SGNS_OK)
                DIE("similarity");
            ro_sgns_similarity_describe(&sr, lines[i], sizeof lines[i]);
            pairs_total += sr.pairs_total;
        }
        t = now() - t;
        if (t < t_sim) t_sim = t;
    }
    printf("bench_eval: similarity suite (%lu pairs) %.4f s\n", (unsigned long)pairs_total, t_sim);

    /* 4. a synthetic analogy suite over the whole vocabulary */
    qfile = (char *)malloc((size_t)N_QUESTIONS * 64 + N_SECTIONS * 32);
    for (i = 0; i < N_QUESTIONS; ++i) {
        size_t r[4];
        if (i % (N_QUESTIONS / N_SECTIONS + 1) == 0)
            qlen += (size_t)sprintf(qfile + qlen, ": section-%02lu\n",
                                    (unsigned long)(i / (N_QUESTIONS / N_SECTIONS + 1)));
        for (j = 0; j < 4; ++j) r[j] = (size_t)(ro_sgns_rng_uniform(&rng) * N_WORDS);
        qlen += (size_t)sprintf(qfile + qlen, "%s %s %s %s\n", words[r[0]], words[r[1]],
                                words[r[2]], words[r[3]]);
    }
    if (ro_sgns_analogies_load_memory(qfile, qlen, &q, NULL, &err) != RO_SGNS_OK) DIE("questions");
    ac = ro_sgns_analogy_config_default();
    t = now();
    if (ro_sgns_analogy_eval(v, q, &ac, &ar, NULL, &err) != RO_SGNS_OK) DIE("3CosAdd");
    t_add = now() - t;
    ro_sgns_analogy_describe(ar, line, sizeof line);
    printf("bench_eval: %s\nbench_eval: 3CosAdd %.2f s\n", line, t_add);
    ro_sgns_analogy_result_free(ar);
    ac.method = RO_SGNS_3COSMUL;
    t = now();
    if (ro_sgns_analogy_eval(v, q, &ac, &ar, NULL, &err) != RO_SGNS_OK) DIE("3CosMul");
    t_mul = now() - t;
    printf("bench_eval: 3CosMul %.2f s\n", t_mul);
    ro_sgns_analogy_result_free(ar);

    /* 5. neighbours: 1000 words in one call, and one word at a time */
    queries = (ro_sgns_real *)malloc(nq_nb * DIM * sizeof(ro_sgns_real));
    nb = (ro_sgns_neighbor *)malloc(nq_nb * 10 * sizeof(ro_sgns_neighbor));
    for (i = 0; i < nq_nb; ++i)
        memcpy(queries + i * DIM, v->data + (i * 7) * DIM, DIM * sizeof(ro_sgns_real));
    t = now();
    if (ro_sgns_neighbors_of_vectors(v, nq_nb, queries, DIM, NULL, 10, nb, NULL, NULL, &err) !=
        RO_SGNS_OK)
        DIE("neighbors");
    t_nb = now() - t;
    t = now();
    for (i = 0; i < 20; ++i)
        if (ro_sgns_neighbors_of_word(v, words[i], 10, nb, &found, NULL, &err) != RO_SGNS_OK)
            DIE("neighbors");
    t_nb1 = (now() - t) / 20;
    printf("bench_eval: neighbours: 1000 queries %.3f s, one word %.4f s\n", t_nb, t_nb1);

    /* 6. RESULTS.md */
    cpu_name(cpu, sizeof cpu);
    f = fopen(out_path, "w");
    if (!f) {
        fprintf(stderr, "bench_eval: cannot write %s\n", out_path);
        return 1;
    }
    fprintf(f, "# Sections 6-7: file formats and evaluation, timings\n\n");
    fprintf(f,
            "Made by `bench/eval.c`. Machine: %s (shared 2-core box; one thread, no OpenMP "
            "unless the flags say so).\n",
            cpu);
    fprintf(f, "Compiler: %s; flags: `%s`; ro_sgns_real = %s.\n\n",
#ifdef __VERSION__
            __VERSION__,
#else
            "unknown",
#endif
            BENCH_FLAGS, sizeof(ro_sgns_real) == sizeof(double) ? "double" : "float");
    fprintf(f,
            "Vectors: %d words x %d dimensions, random normal; the vocabulary starts with all %lu "
            "words of the five similarity sets.\n\n",
            N_WORDS, DIM, (unsigned long)nsim);
    fprintf(f, "| what | size | time |\n| --- | --- | --- |\n");
    fprintf(f, "| write word2vec binary (temp file + rename) | %.1f MB | %.3f s |\n",
            file_size(bin_path) / 1e6, t_wbin);
    fprintf(f, "| write word2vec text (`%%.9g`) | %.1f MB | %.3f s |\n", file_size(txt_path) / 1e6,
            t_wtxt);
    fprintf(f, "| load word2vec binary (best of 3) | %.1f MB | %.3f s (%.0f MB/s) |\n",
            file_size(bin_path) / 1e6, t_lbin, file_size(bin_path) / 1e6 / t_lbin);
    fprintf(f, "| load word2vec text (best of 3) | %.1f MB | %.3f s (%.0f MB/s) |\n",
            file_size(txt_path) / 1e6, t_ltxt, file_size(txt_path) / 1e6 / t_ltxt);
    fprintf(f, "| similarity suite: load + evaluate 5 files (best of 5) | %lu pairs | %.4f s |\n",
            (unsigned long)pairs_total, t_sim);
    fprintf(f, "| analogies, 3CosAdd, all rows (GEMM) | %d questions | %.2f s (%.1f GFLOP/s) |\n",
            N_QUESTIONS, t_add, 2.0 * N_QUESTIONS * N_WORDS * DIM / t_add / 1e9);
    fprintf(f,
            "| analogies, 3CosMul, all rows (GEMM, 3 rows per question) | %d questions | %.2f s "
            "(%.1f GFLOP/s) |\n",
            N_QUESTIONS, t_mul, 6.0 * N_QUESTIONS * N_WORDS * DIM / t_mul / 1e9);
    fprintf(f, "| nearest neighbours, 1000 queries in one call, k = 10 | 1000 queries | %.3f s |\n",
            t_nb);
    fprintf(f, "| nearest neighbours of one word, k = 10 | 1 query | %.4f s |\n\n", t_nb1);
    fprintf(f, "Similarity lines as printed (random vectors, so rho is near 0; the point is what "
               "each line says):\n\n```\n");
    for (i = 0; i < 5; ++i) fprintf(f, "%-14s %s\n", sets[i], lines[i]);
    fprintf(f, "```\n");
    fclose(f);
    printf("bench_eval: wrote %s\n", out_path);

    free(qfile);
    free(queries);
    free(nb);
    ro_sgns_analogies_free(q);
    ro_sgns_vectors_free(v);
    for (i = 0; i < N_WORDS; ++i) free(words[i]);
    free(words);
    free(x);
    remove(bin_path);
    remove(txt_path);
    return 0;
}
