/* bench/files.c - what the checksums of the counts files cost.
     bench_files crc             CRC-32C of 256 MiB: a byte at a time (the
                                 reference), this build's ro_sgns__crc_update
                                 (slicing by 8, or the SSE4.2 instruction
                                 when the build targets it), and version 1's
                                 64-bit multiply hash; GB/s side by side
     bench_files load FILE [P]   the counts FILE loaded whole, then rows
                                 [0, n/P) of it (P = 64): seconds and the
                                 peak memory (each in its own process, by
                                 re-running this program)
     bench_files convert IN OUT  load IN (version 1 or 2), save OUT (2)
   make bench-files builds it twice (-march=native, and -DRO_SGNS_NO_SIMD
   for the table-driven CRC) and runs both on the corpus's counts. */
#define _XOPEN_SOURCE 700 /* getrusage */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

static double peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
}

static int bench_crc(void)
{
    size_t size = (size_t)256 << 20, i;
    unsigned char *buf = (unsigned char *)malloc(size);
    ro_sgns__crc t;
    ro_sgns__ck ck;
    uint32_t a, b;
    uint64_t h;
    double t0, t1, t2, t3;
    if (!buf) return 1;
    for (i = 0; i < size; ++i) buf[i] = (unsigned char)(i * 2654435761u >> 13);
    ro_sgns__crc_init(&t);
    t0 = now();
    a = ro_sgns__crc_bytes(&t, 0, buf, size);
    t1 = now();
    b = ro_sgns__crc_update(&t, 0, buf, size);
    t2 = now();
    ro_sgns__ck_init(&ck);
    ro_sgns__ck_update(&ck, buf, size);
    h = ro_sgns__ck_final(&ck);
    t3 = now();
#ifdef RO_SGNS__CRC_HW
    printf("CRC-32C of 256 MiB (this build: the SSE4.2 crc32 instruction)\n");
#else
    printf("CRC-32C of 256 MiB (this build: slicing by 8, tables)\n");
#endif
    printf("  %-34s %8.2f GB/s\n", "a byte at a time (reference)", (double)size / (t1 - t0) / 1e9);
    printf("  %-34s %8.2f GB/s%s\n", "ro_sgns__crc_update", (double)size / (t2 - t1) / 1e9,
           a == b ? "" : "  DIFFERENT CRC");
    printf("  %-34s %8.2f GB/s (version 1, for scale; %016llx)\n", "the old 64-bit hash",
           (double)size / (t3 - t2) / 1e9, (unsigned long long)h);
    free(buf);
    return a == b ? 0 : 1;
}

static int bench_load(const char *path, const char *what, size_t parts)
{
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    double t0 = now(), t1;
    ro_sgns_result rc;
    if (strcmp(what, "whole") == 0) {
        rc = ro_sgns_counts_load_path(path, &c, NULL, &err);
    } else {
        /* n from a first, cheap look: rows [0, 1) */
        size_t n;
        rc = ro_sgns_counts_load_rows_path(path, 0, 1, &c, NULL, &err);
        if (rc != RO_SGNS_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        n = c->n;
        ro_sgns_counts_free(c);
        c = NULL;
        t0 = now();
        rc = ro_sgns_counts_load_rows_path(path, 0, n / parts, &c, NULL, &err);
    }
    t1 = now();
    if (rc != RO_SGNS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    printf("  %-28s %8.2f s  peak %8.1f MiB  (n = %lu, %llu pairs held)\n", what, t1 - t0,
           peak_mib(), (unsigned long)c->n, (unsigned long long)c->nnz);
    ro_sgns_counts_free(c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "crc") == 0) return bench_crc();
    if (argc >= 3 && strcmp(argv[1], "load") == 0) {
        char cmd[1200];
        size_t parts = argc >= 4 ? (size_t)atoi(argv[3]) : 64;
        int rc = 0;
        printf("%s\n", argv[2]);
        snprintf(cmd, sizeof cmd, "'%s' load1 '%s' whole %lu", argv[0], argv[2], (unsigned long)parts);
        rc |= system(cmd);
        snprintf(cmd, sizeof cmd, "'%s' load1 '%s' 'rows 0..n/%lu' %lu", argv[0], argv[2],
                 (unsigned long)parts, (unsigned long)parts);
        rc |= system(cmd);
        return rc != 0;
    }
    if (argc >= 5 && strcmp(argv[1], "load1") == 0)
        return bench_load(argv[2], argv[3], (size_t)atoi(argv[4]));
    if (argc >= 4 && strcmp(argv[1], "convert") == 0) {
        ro_sgns_counts *c = NULL;
        ro_sgns_error err;
        if (ro_sgns_counts_load_path(argv[2], &c, NULL, &err) != RO_SGNS_OK ||
            ro_sgns_counts_save_path(c, argv[3], &err) != RO_SGNS_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        ro_sgns_counts_free(c);
        return 0;
    }
    fprintf(stderr, "usage: bench_files crc | load FILE [P] | convert IN OUT\n");
    return 2;
}
