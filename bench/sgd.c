/* bench/sgd.c - speed and quality of "8. SGD-SGNS baseline (word2vec)",
   side by side with the original word2vec.c on the same corpus, the same
   vocabulary and the same settings, in the same run.

   Build (from the repository root):
       cc -std=c99 -O3 -march=native -fopenmp \
          -DBENCH_FLAGS="\"-O3 -march=native -fopenmp\"" bench/sgd.c -o build/bench_sgd \
          -lopenblas -lm                                  (or: make build/bench_sgd)
   The original tool (never in the repository):
       cd $(mktemp -d) && npm install --ignore-scripts word2vec
       make -C node_modules/word2vec/src word2vec      # its makefile: -O3 -march=native ...
   Run:
       head -c 100000000 build/corpus.txt > build/corpus17m.txt   # ~17M tokens
       ./build/bench_sgd CORPUS MIN_COUNT THREADS [WORD2VEC [WS353 [EPOCHS]]]
   e.g. ./build/bench_sgd build/corpus17m.txt 50 1,2,v2 /tmp/x/node_modules/word2vec/src/word2vec
   THREADS is a list: T is Hogwild on T threads, vK is K virtual workers
   (cfg.workers, reproducible) on K threads (word2vec then runs K threads).
   Defaults: build/corpus17m.txt, 50, "1,2", no word2vec,
   ../shared/data/wordsim/ws353.txt, 1 epoch.

   Settings for both: skip-gram, d = 100, window 5, negative 5, no
   hierarchical softmax, sample 0, alpha 0.025, 1 epoch, min-count as given.
   The vocabulary is counted once by section 1 and handed to both tools
   (word2vec through -read-vocab, with its "</s>" entry first, counted once
   per line break as word2vec counts it), so both train on the same words.
   Timings are wall clock around each whole run (reading the corpus
   included for both; word2vec also builds its 1e8-entry table), with the
   CPU seconds (user + system, getrusage) of the same run beside them: on a
   machine shared with other work a thread may wait for a core, and then
   "words per CPU-second" is the figure that compares the two tools (with
   T threads it is the mean rate of one busy thread). "train loop" is each
   tool's own figure for its training loop alone (ours: the progress
   callback's wall seconds; word2vec: its last "Words/thread/sec", which it
   computes from process CPU time). Evaluation: ws353, Spearman, pairs with
   an out-of-vocabulary word skipped, no case folding. Numbers
   go to stdout as a Markdown table. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* glibc: madvise(MADV_HUGEPAGE), the huge pages SGD's W and C get */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

typedef struct {
    ro_sgns_sgd_progress last;
} progress_log;

static int on_progress(const ro_sgns_sgd_progress *p, void *user)
{
    ((progress_log *)user)->last = *p;
    return 0;
}

static int ws353(const ro_sgns_vectors *v, const char *path, double *rho, size_t *used)
{
    ro_sgns_similarity_result r;
    ro_sgns_error err;
    if (ro_sgns_similarity_eval_path(v, path, NULL, &r, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "ws353: %s\n", err.message);
        return 1;
    }
    *rho = r.spearman;
    *used = r.pairs_used;
    return 0;
}

/* word2vec's vocabulary file: "</s> lines" first (word2vec keeps it at
   index 0 and ends sentences there), then every word and its count. */
static int write_w2v_vocab(const ro_sgns_vocab *v, uint64_t lines, const char *path)
{
    FILE *f = fopen(path, "w");
    size_t i;
    if (!f) return 1;
    fprintf(f, "</s> %llu\n", (unsigned long long)lines);
    for (i = 0; i < v->n; ++i) fprintf(f, "%s %llu\n", v->word[i], (unsigned long long)v->count[i]);
    return fclose(f) != 0;
}

static uint64_t count_newlines(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = (char *)malloc(1 << 16);
    uint64_t k = 0;
    size_t got, i;
    if (!f || !buf) {
        if (f) fclose(f);
        free(buf);
        return 0;
    }
    while ((got = fread(buf, 1, 1 << 16, f)) > 0)
        for (i = 0; i < got; ++i) k += buf[i] == '\n';
    fclose(f);
    free(buf);
    return k;
}

/* the last "Words/thread/sec: 123.45k" in word2vec's output */
static double w2v_rate(const char *log)
{
    FILE *f = fopen(log, "rb");
    char *s;
    long n;
    double rate = 0;
    const char *key = "Words/thread/sec: ", *p;
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = (char *)malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) == (size_t)n) {
        s[n] = '\0';
        for (p = strstr(s, key); p; p = strstr(p + 1, key)) rate = atof(p + strlen(key)) * 1e3;
    }
    free(s);
    fclose(f);
    return rate;
}

typedef struct {
    const char *tool;
    int threads;
    double wall, cpu, train_rate, rho;
    size_t used;
} row;

int main(int argc, char **argv)
{
    const char *corpus = argc > 1 ? argv[1] : "build/corpus17m.txt";
    uint64_t min_count = argc > 2 ? (uint64_t)atoll(argv[2]) : 50;
    const char *tlist = argc > 3 ? argv[3] : "1,2";
    const char *w2v = argc > 4 && argv[4][0] ? argv[4] : NULL;
    const char *wsp = argc > 5 ? argv[5] : "../shared/data/wordsim/ws353.txt";
    int epochs = argc > 6 ? atoi(argv[6]) : 1;
    ro_sgns_count_config cc = ro_sgns_count_config_default();
    ro_sgns_counts *co = NULL;
    ro_sgns_error err;
    ro_sgns_real *W, *C;
    row rows[16];
    int nrows = 0, i;
    char cmd[2048];
    const char *tp;
    double t0, t1, c0;
    uint64_t words;

    cc.window = 5;
    cc.min_count = min_count;
    t0 = bench_now();
    if (ro_sgns_count_path(corpus, &cc, &co, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "count: %s\n", err.message);
        return 1;
    }
    t1 = bench_now();
    words = 0;
    for (i = 0; i < (int)co->n; ++i) words += co->vocab.count[i];
    printf("# SGD-SGNS bench\n\n");
    bench_print_setup(stdout, ro_sgns__num_threads());
    printf("- ro_sgns_real: %s\n", sizeof(ro_sgns_real) == 4 ? "float" : "double");
    printf("- corpus: %s, %llu tokens, min_count %llu -> n = %llu words, %llu vocabulary "
           "tokens (counting: %.1f s)\n",
           corpus, (unsigned long long)co->corpus_tokens, (unsigned long long)min_count,
           (unsigned long long)co->n, (unsigned long long)words, t1 - t0);
    printf("- settings: skip-gram, d 100, window 5, negative 5, sample 0, alpha 0.025, "
           "%d epoch(s)\n",
           epochs);
    printf("- ws353: %s, Spearman, OOV pairs skipped, no case folding\n\n", wsp);
    fflush(stdout);

    W = (ro_sgns_real *)malloc(co->n * 100 * sizeof(ro_sgns_real));
    C = (ro_sgns_real *)malloc(co->n * 100 * sizeof(ro_sgns_real));
    if (w2v && write_w2v_vocab(&co->vocab, count_newlines(corpus), "build/sgd/w2v_vocab.txt")) {
        fprintf(stderr, "cannot write build/sgd/w2v_vocab.txt\n");
        return 1;
    }

    for (tp = tlist; *tp && nrows < 14; tp += strcspn(tp, ",") + (tp[strcspn(tp, ",")] != 0)) {
        int virt = *tp == 'v', th = atoi(tp + virt);
        ro_sgns_sgd_config cfg = ro_sgns_sgd_config_default();
        progress_log lg;
        ro_sgns_vectors *v = NULL;
        row r;
        if (th < 1) continue;
        cfg.size = 100;
        cfg.window = 5;
        cfg.negative = 5;
        cfg.sample = 0;
        cfg.epochs = epochs;
        cfg.threads = th;
        cfg.workers = virt ? th : 0;
        cfg.callback = on_progress;
        cfg.user = &lg;
        memset(&lg, 0, sizeof lg);
        c0 = bench_cpu_seconds(RUSAGE_SELF);
        t0 = bench_now();
        if (ro_sgns_sgd_train_path(corpus, &co->vocab, &cfg, W, C, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "train: %s\n", err.message);
            return 1;
        }
        t1 = bench_now();
        r.tool = virt ? "ro_sgns, virtual workers" : "ro_sgns, Hogwild";
        r.threads = lg.last.threads;
        r.wall = t1 - t0;
        r.cpu = bench_cpu_seconds(RUSAGE_SELF) - c0;
        r.train_rate = lg.last.words_per_sec / lg.last.threads;
        r.rho = 0;
        r.used = 0;
        if (ro_sgns_vectors_create(co->n, 100, (const char *const *)co->vocab.word, W, 100, &v,
                                   NULL, &err) == RO_SGNS_OK) {
            ws353(v, wsp, &r.rho, &r.used);
            ro_sgns_vectors_free(v);
        } else {
            fprintf(stderr, "vectors: %s\n", err.message);
        }
        rows[nrows++] = r;
        printf("%s, threads %d: wall %.1f s, cpu %.1f s, train %.0f words/s/thread, "
               "ws353 %.4f\n",
               r.tool, r.threads, r.wall, r.cpu, r.train_rate, r.rho);
        fflush(stdout);

        if (w2v) {
            snprintf(cmd, sizeof cmd,
                     "%s -train %s -read-vocab build/sgd/w2v_vocab.txt -output build/sgd/w2v.bin "
                     "-binary 1 -cbow 0 -size 100 -window 5 -negative 5 -hs 0 -sample 0 "
                     "-iter %d -min-count %llu -alpha 0.025 -threads %d > build/sgd/w2v.log 2>&1",
                     w2v, corpus, epochs, (unsigned long long)min_count, th);
            c0 = bench_cpu_seconds(RUSAGE_CHILDREN);
            t0 = bench_now();
            if (system(cmd) != 0) {
                fprintf(stderr, "word2vec failed: %s\n", cmd);
                return 1;
            }
            t1 = bench_now();
            r.tool = "word2vec.c";
            r.threads = th;
            r.wall = t1 - t0;
            r.cpu = bench_cpu_seconds(RUSAGE_CHILDREN) - c0;
            r.train_rate = w2v_rate("build/sgd/w2v.log");
            r.rho = 0;
            r.used = 0;
            if (ro_sgns_vectors_load_path("build/sgd/w2v.bin", RO_SGNS_W2V_BINARY, 0, &v, NULL,
                                          &err) == RO_SGNS_OK) {
                ws353(v, wsp, &r.rho, &r.used);
                ro_sgns_vectors_free(v);
            } else {
                fprintf(stderr, "word2vec vectors: %s\n", err.message);
            }
            rows[nrows++] = r;
            printf("word2vec threads %d: wall %.1f s, cpu %.1f s, train %.0f words/s/thread, "
                   "ws353 %.4f\n",
                   r.threads, r.wall, r.cpu, r.train_rate, r.rho);
            fflush(stdout);
        }
    }

    printf("\n| tool | threads | wall s | CPU s | words/s (wall) | words/s/thread (wall) | "
           "words per CPU-second | train loop words/s/thread | ws353 rho (pairs) |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (i = 0; i < nrows; ++i)
        printf("| %s | %d | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f | %.4f (%u) |\n",
               rows[i].tool, rows[i].threads, rows[i].wall, rows[i].cpu,
               (double)words * epochs / rows[i].wall,
               (double)words * epochs / rows[i].wall / rows[i].threads,
               (double)words * epochs / rows[i].cpu, rows[i].train_rate, rows[i].rho,
               (unsigned)rows[i].used);
    free(W);
    free(C);
    ro_sgns_counts_free(co);
    return 0;
}
