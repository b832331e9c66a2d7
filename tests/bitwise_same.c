/* bitwise_same.c - do two counts files, or two checkpoints, hold the same
   numbers bit for bit, whatever their format versions? For
   tests/bitwise_vs.sh, whose two versions of the library may write
   different layouts of the same data.
       bitwise_same counts A B      bitwise_same checkpoint A B
   Exit status 0 when the same, 1 when not, 2 on a load error. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <stdio.h>
#include <string.h>

static int same_counts(const ro_sgns_counts *a, const ro_sgns_counts *b)
{
    size_t i;
    if (a->n != b->n || a->nnz != b->nnz || memcmp(&a->total, &b->total, sizeof a->total) != 0)
        return 0;
    for (i = 0; i < a->n; ++i)
        if (a->vocab.len[i] != b->vocab.len[i] || a->vocab.count[i] != b->vocab.count[i] ||
            memcmp(a->vocab.word[i], b->vocab.word[i], a->vocab.len[i]) != 0)
            return 0;
    return memcmp(a->row_ptr, b->row_ptr, (a->n + 1) * sizeof *a->row_ptr) == 0 &&
           memcmp(a->col, b->col, (size_t)a->nnz * sizeof *a->col) == 0 &&
           memcmp(a->val, b->val, (size_t)a->nnz * sizeof *a->val) == 0 &&
           memcmp(a->word_count, b->word_count, a->n * sizeof *a->word_count) == 0 &&
           memcmp(a->ctx_count, b->ctx_count, a->n * sizeof *a->ctx_count) == 0;
}

static int same_factors(const ro_sgns_factors *a, const ro_sgns_factors *b)
{
    return a->n == b->n && a->m == b->m && a->d == b->d && a->iteration == b->iteration &&
           memcmp(&a->next_step, &b->next_step, sizeof a->next_step) == 0 &&
           memcmp(a->U, b->U, a->n * a->d * sizeof *a->U) == 0 &&
           memcmp(a->S, b->S, a->d * a->d * sizeof *a->S) == 0 &&
           memcmp(a->V, b->V, a->m * a->d * sizeof *a->V) == 0;
}

int main(int argc, char **argv)
{
    ro_sgns_error err;
    int same;
    if (argc != 4) {
        fprintf(stderr, "usage: bitwise_same counts|checkpoint A B\n");
        return 2;
    }
    if (strcmp(argv[1], "counts") == 0) {
        ro_sgns_counts *a = NULL, *b = NULL;
        if (ro_sgns_counts_load_path(argv[2], &a, NULL, &err) != RO_SGNS_OK ||
            ro_sgns_counts_load_path(argv[3], &b, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "bitwise_same: %s\n", err.message);
            return 2;
        }
        same = same_counts(a, b);
        ro_sgns_counts_free(a);
        ro_sgns_counts_free(b);
    } else {
        ro_sgns_factors *a = NULL, *b = NULL;
        if (ro_sgns_factors_load_path(argv[2], &a, NULL, &err) != RO_SGNS_OK ||
            ro_sgns_factors_load_path(argv[3], &b, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "bitwise_same: %s\n", err.message);
            return 2;
        }
        same = same_factors(a, b);
        ro_sgns_factors_free(a);
        ro_sgns_factors_free(b);
    }
    return same ? 0 : 1;
}
