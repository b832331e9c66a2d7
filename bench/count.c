/* bench/count.c - speed and memory of "1. Counting" on a corpus.

   Build (from the repository root):
       gcc -std=c99 -O2 -fopenmp bench/count.c -o build/bench_count -lm
   Run:
       xz -dkc /work/shared/data/corpus/corpus.txt.xz > build/corpus.txt   # once
       ./build/bench_count [corpus] [window] [min_count] [budget_MiB] [save_path]
   Defaults: build/corpus.txt, window 5, min_count 100, no budget, no save.
   Prints tokens/s (whole run: reading, vocabulary, pairs), the vocabulary
   size, nnz, |D|, the bytes the library held at its peak and the process's
   peak resident memory (getrusage ru_maxrss). Run one configuration per
   process: ru_maxrss is a high-water mark. */
#define _POSIX_C_SOURCE 200112L
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "build/corpus.txt";
    ro_sgns_count_config cfg = ro_sgns_count_config_default();
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    ro_sgns_result rc;
    struct rusage ru;
    double t0, t1, mib = 1024.0 * 1024.0;
    cfg.window = argc > 2 ? atoi(argv[2]) : 5;
    cfg.min_count = argc > 3 ? (uint64_t)atoll(argv[3]) : 100;
    cfg.memory_budget = argc > 4 ? (uint64_t)(atof(argv[4]) * mib) : 0;

    t0 = now();
    rc = ro_sgns_count_path(path, &cfg, &c, NULL, &err);
    t1 = now();
    if (rc != RO_SGNS_OK) {
        fprintf(stderr, "count: %s: %s\n", ro_sgns_result_string(rc), err.message);
        return 1;
    }
    getrusage(RUSAGE_SELF, &ru);
    printf("corpus            %s\n", path);
    printf("settings          window %d, min_count %llu, budget %s%.0f MiB\n", cfg.window,
           (unsigned long long)cfg.min_count, cfg.memory_budget ? "" : "none ",
           (double)cfg.memory_budget / mib);
    printf("tokens            %llu\n", (unsigned long long)c->corpus_tokens);
    printf("distinct words    %llu\n", (unsigned long long)c->distinct_words);
    printf("vocabulary n      %llu\n", (unsigned long long)c->n);
    printf("nnz               %llu\n", (unsigned long long)c->nnz);
    printf("|D|               %.0f\n", c->total);
    printf("time              %.2f s\n", t1 - t0);
    printf("tokens/s          %.2f M (wall)\n", (double)c->corpus_tokens / (t1 - t0) / 1e6);
    printf("cpu               user %.2f s, system %.2f s (page faults: %ld)\n",
           (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec,
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec, ru.ru_minflt);
    printf("tokens/s (cpu)    %.2f M (user + system)\n",
           (double)c->corpus_tokens /
               ((double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec) / 1e6);
    printf("library peak      %.1f MiB (%.2f bytes per pair)\n", (double)c->peak_bytes / mib,
           (double)c->peak_bytes / (double)c->nnz);
    printf("counts object     %.1f MiB\n",
           (double)ro_sgns_estimate_memory(c->n, c->nnz, 0, 0, 0).counts / mib);
    printf("peak RSS          %.1f MiB (%.2f bytes per pair)\n", (double)ru.ru_maxrss / 1024.0,
           (double)ru.ru_maxrss * 1024.0 / (double)c->nnz);
    if (argc > 5) {
        t0 = now();
        rc = ro_sgns_counts_save_path(c, argv[5], &err);
        t1 = now();
        if (rc != RO_SGNS_OK) {
            fprintf(stderr, "save: %s\n", err.message);
            ro_sgns_counts_free(c);
            return 1;
        }
        printf("save              %.2f s (%llu bytes)\n", t1 - t0,
               (unsigned long long)ro_sgns_counts_saved_size(c));
        ro_sgns_counts_free(c);
        c = NULL;
        t0 = now();
        rc = ro_sgns_counts_load_path(argv[5], &c, NULL, &err);
        t1 = now();
        if (rc != RO_SGNS_OK) {
            fprintf(stderr, "load: %s\n", err.message);
            return 1;
        }
        printf("load              %.2f s\n", t1 - t0);
    }
    ro_sgns_counts_free(c);
    return 0;
}
