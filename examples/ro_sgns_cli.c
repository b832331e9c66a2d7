/* ro_sgns_cli.c - the ro-sgns command-line program, built on the public API of
   ro_sgns.h only. Flags in the spirit of word2vec's single-dash options.

     ro-sgns count     -train TEXT -output COUNTS [options]
     ro-sgns train     -counts COUNTS -method ro|svd -size D -output VECTORS [options]
     ro-sgns eval      -vectors VECTORS PAIRS_FILE... [-analogy FILE]
     ro-sgns neighbors -vectors VECTORS WORD...
     ro-sgns objective -counts COUNTS -vectors W [-contexts C]

   Progress goes to stderr (silenced by -quiet), results to stdout. Every
   error is one line on stderr and a non-zero exit status. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *USAGE =
    "ro-sgns " RO_SGNS_VERSION_STRING " - word embeddings by Riemannian optimization of SGNS\n"
    "\n"
    "usage: ro-sgns COMMAND [flags]\n"
    "\n"
    "  count      text -> co-occurrence counts\n"
    "    -train TEXT        corpus: tokens separated by space, tab, newline (required)\n"
    "    -output COUNTS     counts file to write (required)\n"
    "    -window L          words on each side (default 5; the paper's code used 2)\n"
    "    -min-count N       keep words seen >= N times (default 5; the paper: 201)\n"
    "    -max-vocab N       keep at most the N most frequent words (default 0: all)\n"
    "    -memory BYTES      memory budget for counting, e.g. 2G, 500M (default: none)\n"
    "    -dynamic-window M  0 fixed (default), 1 sampled as word2vec, 2 weighted (L-dist+1)/L\n"
    "    -sample T          subsample frequent words with threshold T (default 0: off)\n"
    "    -cross-lines 0|1   let windows cross line breaks (default 0)\n"
    "    -seed S            for -dynamic-window 1 and -sample (default 1)\n"
    "\n"
    "  train      counts -> word vectors\n"
    "    -counts COUNTS     counts file from 'count' (required)\n"
    "    -method ro|svd|sgd RO-SGNS (default), SVD-SPPMI alone, or word2vec's SGD\n"
    "    -train TEXT        the corpus (sgd only; words as in the counts' vocabulary)\n"
    "    -epochs E          SGD epochs (default 1); -alpha-sgd A start rate (0.025)\n"
    "    -size D            dimension (default 100)\n"
    "    -negative K        negative samples k (default 5)\n"
    "    -iter K            RO steps (default 10)\n"
    "    -eta L             step size: eta (scaled, default 1) or lambda (plain)\n"
    "    -direction D       scaled (default) or plain (the paper's grad F)\n"
    "    -safeguard 0|1     halve steps that lower F (default 1; 0 = the paper's fixed step)\n"
    "    -init svd|FILE     start: SVD-SPPMI (default) or word vectors FILE (W0 = C0 unless\n"
    "                       -init-contexts FILE gives C0)\n"
    "    -alpha A           embeddings W = U P Sigma^A (default 0.5)\n"
    "    -svd krylov|subspace  the truncated SVD's method (default krylov)\n"
    "    -oversample P      extra columns of its search space (default 0 = the\n"
    "                       library's: 2 d for krylov, max(50, d / 2) for subspace)\n"
    "    -block B           krylov: columns per block (default 0 = the library's)\n"
    "    -power-iters Q     subspace: power iterations (default 5)\n"
    "    -threads N         OpenMP threads (default: all)\n"
    "    -seed S            random seed of the truncated SVD (default 1)\n"
    "    -checkpoint FILE   save the point after every RO step\n"
    "    -resume FILE       continue from a checkpoint (same counts and flags)\n"
    "    -eval DIR          score word similarity (DIR/*.txt of ws353, ws353_sim, ws353_rel,\n"
    "                       simlex999, men) after every step\n"
    "    -curve FILE.csv    write iteration, F and the scores per step to a CSV file\n"
    "    -output VECTORS    vectors file to write (required)\n"
    "    -output-contexts C write the context vectors C = V Q Sigma^A too (for 'objective')\n"
    "    -binary 0|1        word2vec binary (1) or text (0, default)\n"
    "\n"
    "  eval       -vectors VECTORS [-binary 0|1] PAIRS_FILE... [-analogy FILE] [-fold-case 1]\n"
    "  neighbors  -vectors VECTORS [-binary 0|1] [-k 10] WORD...\n"
    "  objective  -counts COUNTS -vectors W [-contexts C] [-binary 0|1] [-negative 5]\n"
    "\n"
    "  Common: -quiet (no progress on stderr), -help.\n"
    "  Vectors files ending in .bin are read as word2vec binary unless -binary 0.\n";

/* ------------------------------------------------------------- flags */

typedef struct {
    int argc;
    char **argv;
    unsigned char *used;
    const char *cmd;
} flags_t;

static void die(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "ro-sgns %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* the value of -name, or NULL; marks both as used */
static const char *flag_str(flags_t *f, const char *name)
{
    int i;
    for (i = 0; i < f->argc; ++i)
        if (f->argv[i][0] == '-' && strcmp(f->argv[i] + 1, name) == 0) {
            if (i + 1 >= f->argc) die(f->cmd, "flag -%s needs a value", name);
            f->used[i] = f->used[i + 1] = 1;
            return f->argv[i + 1];
        }
    return NULL;
}

static int flag_present(flags_t *f, const char *name)
{
    int i;
    for (i = 0; i < f->argc; ++i)
        if (f->argv[i][0] == '-' && strcmp(f->argv[i] + 1, name) == 0) {
            f->used[i] = 1;
            return 1;
        }
    return 0;
}

static double flag_num(flags_t *f, const char *name, double def, double lo, double hi)
{
    const char *s = flag_str(f, name);
    char *end;
    double v;
    if (!s) return def;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi))
        die(f->cmd, "-%s %s: expected a number in [%g, %g]", name, s, lo, hi);
    return v;
}

/* sizes like 2G, 500M, 64K */
static double flag_bytes(flags_t *f, const char *name)
{
    const char *s = flag_str(f, name);
    char *end;
    double v, mul = 1;
    if (!s) return 0;
    v = strtod(s, &end);
    if (*end == 'K' || *end == 'k') mul = 1024, ++end;
    else if (*end == 'M' || *end == 'm') mul = 1048576, ++end;
    else if (*end == 'G' || *end == 'g') mul = 1073741824, ++end;
    if (end == s || *end || !(v > 0)) die(f->cmd, "-%s %s: expected a size like 500M or 2G", name, s);
    return v * mul;
}

/* after all flags are read: anything left that starts with '-' is unknown;
   the rest are positional arguments, collected into pos */
static int finish_flags(flags_t *f, char **pos)
{
    int i, n = 0;
    for (i = 0; i < f->argc; ++i) {
        if (f->used[i]) continue;
        if (f->argv[i][0] == '-' && f->argv[i][1] != '\0')
            die(f->cmd, "unknown flag %s (see ro-sgns -help)", f->argv[i]);
        if (pos) pos[n++] = f->argv[i];
        else die(f->cmd, "unexpected argument '%s'", f->argv[i]);
    }
    return n;
}

static double now(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

static ro_sgns_vectors_format vectors_format(flags_t *f, const char *path)
{
    const char *b = flag_str(f, "binary");
    size_t len = strlen(path);
    if (b) return atoi(b) ? RO_SGNS_W2V_BINARY : RO_SGNS_W2V_TEXT;
    return len > 4 && strcmp(path + len - 4, ".bin") == 0 ? RO_SGNS_W2V_BINARY : RO_SGNS_W2V_TEXT;
}

/* ------------------------------------------------------------- count */

typedef struct {
    FILE *f;
    double size, done, t0, last;
    int quiet;
} progress_reader;

/* read callback that draws a progress bar with rate and ETA on stderr */
static size_t read_with_progress(void *user, void *buf, size_t size)
{
    progress_reader *r = (progress_reader *)user;
    size_t got = fread(buf, 1, size, r->f);
    double t;
    if (got == 0 && ferror(r->f)) return (size_t)-1;
    r->done += (double)got;
    t = now();
    if (!r->quiet && (t - r->last > 0.5 || got == 0)) {
        double frac = r->size > 0 ? r->done / r->size : 0, rate = r->done / (t - r->t0 + 1e-9);
        int i, w = (int)(frac * 30);
        fprintf(stderr, "\rreading [");
        for (i = 0; i < 30; ++i) fputc(i < w ? '#' : '.', stderr);
        fprintf(stderr, "] %5.1f%%  %.1f MB/s  ETA %.0f s ", 100 * frac, rate / 1e6,
                rate > 0 && r->size > r->done ? (r->size - r->done) / rate : 0.0);
        r->last = t;
    }
    return got;
}

static int cmd_count(flags_t *f)
{
    ro_sgns_count_config cfg = ro_sgns_count_config_default();
    const char *train = flag_str(f, "train"), *output = flag_str(f, "output");
    int quiet = flag_present(f, "quiet");
    progress_reader pr;
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    double t0 = now();
    cfg.window = (int)flag_num(f, "window", 5, 1, 65535);
    cfg.min_count = (uint64_t)flag_num(f, "min-count", 5, 0, 1e18);
    cfg.max_vocab = (uint64_t)flag_num(f, "max-vocab", 0, 0, 4e9);
    cfg.memory_budget = (uint64_t)flag_bytes(f, "memory");
    cfg.dynamic_window = (int)flag_num(f, "dynamic-window", 0, 0, 2);
    cfg.sample = flag_num(f, "sample", 0, 0, 1);
    cfg.cross_lines = (int)flag_num(f, "cross-lines", 0, 0, 1);
    cfg.seed = (uint64_t)flag_num(f, "seed", 1, 0, 1e18);
#ifdef _OPENMP
    if (flag_str(f, "threads")) omp_set_num_threads((int)flag_num(f, "threads", 1, 1, 1024));
#endif
    finish_flags(f, NULL);
    if (!train) die(f->cmd, "-train TEXT is required");
    if (!output) die(f->cmd, "-output COUNTS is required");
    memset(&pr, 0, sizeof pr);
    pr.f = fopen(train, "rb");
    if (!pr.f) die(f->cmd, "cannot open '%s': %s", train, strerror(errno));
    if (fseek(pr.f, 0, SEEK_END) == 0) {
        pr.size = (double)ftell(pr.f);
        fseek(pr.f, 0, SEEK_SET);
    }
    pr.t0 = pr.last = now();
    pr.quiet = quiet;
    if (ro_sgns_count_callback(read_with_progress, &pr, &cfg, &c, NULL, &err) != RO_SGNS_OK) {
        if (!quiet) fputc('\n', stderr);
        fclose(pr.f);
        die(f->cmd, "%s: %s", train, err.message);
    }
    fclose(pr.f);
    if (!quiet) fputc('\n', stderr);
    if (ro_sgns_counts_save_path(c, output, &err) != RO_SGNS_OK) {
        ro_sgns_counts_free(c);
        die(f->cmd, "%s", err.message);
    }
    if (!quiet)
        fprintf(stderr,
                "count: %llu tokens, %llu distinct words, vocabulary %lu (min-count %llu), "
                "%llu pairs, |D| = %.0f, %.1f s -> %s\n",
                (unsigned long long)c->corpus_tokens, (unsigned long long)c->distinct_words,
                (unsigned long)c->n, (unsigned long long)cfg.min_count,
                (unsigned long long)c->nnz, c->total, now() - t0, output);
    ro_sgns_counts_free(c);
    return 0;
}

/* ------------------------------------------------------------- train */

static const char *EVAL_SETS[5] = {"ws353_sim.txt", "ws353_rel.txt", "ws353.txt",
                                   "simlex999.txt", "men.txt"};
static const char *EVAL_NAMES[5] = {"ws-sim", "ws-rel", "ws-full", "simlex", "men"};

typedef struct {
    const ro_sgns_counts *counts;
    const char *eval_dir, *checkpoint, *cmd;
    double alpha;
    int quiet;
    FILE *curve;
    double t_start;
} train_ctx;

/* embeddings W (or C) of a point as a vectors object */
static int point_vectors_kind(const ro_sgns_factors *x, const ro_sgns_counts *c, double alpha,
                              ro_sgns_embedding_kind kind, ro_sgns_vectors **v, ro_sgns_error *err)
{
    const char **words;
    size_t i;
    int rc;
    ro_sgns_real *W = (ro_sgns_real *)malloc(x->n * x->d * sizeof(ro_sgns_real));
    words = (const char **)malloc(c->n * sizeof(char *));
    if (!W || !words) {
        free(W);
        free((void *)words);
        snprintf(err->message, sizeof err->message, "out of memory");
        return -1;
    }
    for (i = 0; i < c->n; ++i) words[i] = c->vocab.word[i];
    rc = ro_sgns_factors_embeddings(x, alpha, kind, W, x->d, NULL, err);
    if (rc == RO_SGNS_OK) rc = ro_sgns_vectors_create(c->n, x->d, words, W, x->d, v, NULL, err);
    free(W);
    free((void *)words);
    return rc;
}

static int point_vectors(const ro_sgns_factors *x, const ro_sgns_counts *c, double alpha,
                         ro_sgns_vectors **v, ro_sgns_error *err)
{
    return point_vectors_kind(x, c, alpha, RO_SGNS_EMBED_W, v, err);
}

/* scores of the five sets (NAN where a set is missing) */
static void score_sets(const ro_sgns_vectors *v, const char *dir, double out[5])
{
    int s;
    for (s = 0; s < 5; ++s) {
        char path[1024];
        ro_sgns_similarity_result r;
        out[s] = NAN;
        snprintf(path, sizeof path, "%s/%s", dir, EVAL_SETS[s]);
        if (ro_sgns_similarity_eval_path(v, path, NULL, &r, NULL, NULL) == RO_SGNS_OK)
            out[s] = r.spearman;
    }
}

static int on_step(const ro_sgns_ro_progress *p, const ro_sgns_factors *x, void *user)
{
    train_ctx *t = (train_ctx *)user;
    double sc[5] = {NAN, NAN, NAN, NAN, NAN};
    ro_sgns_error err;
    int s;
    if (t->eval_dir) {
        ro_sgns_vectors *v;
        if (point_vectors(x, t->counts, t->alpha, &v, &err) == RO_SGNS_OK) {
            score_sets(v, t->eval_dir, sc);
            ro_sgns_vectors_free(v);
        }
    }
    if (!t->quiet) {
        fprintf(stderr, "iter %3llu  F %.5f e9  step %.3g%s  |dX| %.4g  %.1f s",
                (unsigned long long)p->iteration, p->objective * 1e-9, p->step,
                p->halvings ? " (halved)" : "", p->step_norm, p->seconds);
        if (t->eval_dir)
            for (s = 0; s < 5; ++s) fprintf(stderr, "  %s %.3f", EVAL_NAMES[s], sc[s]);
        fputc('\n', stderr);
    }
    if (t->curve) {
        fprintf(t->curve, "%llu,%.6f,%.4g", (unsigned long long)p->iteration,
                p->objective * 1e-9, p->seconds);
        for (s = 0; s < 5; ++s) fprintf(t->curve, ",%.4f", sc[s]);
        fputc('\n', t->curve);
        fflush(t->curve);
    }
    if (t->checkpoint && ro_sgns_factors_save_path(x, t->checkpoint, &err) != RO_SGNS_OK)
        fprintf(stderr, "ro-sgns train: checkpoint: %s\n", err.message);
    return 0;
}

static ro_sgns_vectors *load_vectors_or_die(flags_t *f, const char *path,
                                            ro_sgns_vectors_format fmt)
{
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    if (ro_sgns_vectors_load_path(path, fmt, 0, &v, NULL, &err) != RO_SGNS_OK)
        die(f->cmd, "%s", err.message);
    return v;
}

/* W (n x d) in the counts' word order from a vectors file; missing words 0 */
static ro_sgns_real *aligned_matrix(flags_t *f, const ro_sgns_vectors *v, const ro_sgns_counts *c,
                                    size_t d)
{
    ro_sgns_real *W = (ro_sgns_real *)calloc(c->n * d, sizeof(ro_sgns_real));
    size_t i, row, missing = 0;
    if (!W) die(f->cmd, "out of memory");
    if (v->d != d) die(f->cmd, "the vectors have dimension %lu, -size is %lu", (unsigned long)v->d, (unsigned long)d);
    for (i = 0; i < c->n; ++i) {
        if (ro_sgns_vectors_find(v, c->vocab.word[i], &row))
            memcpy(W + i * d, v->data + row * d, d * sizeof(ro_sgns_real));
        else
            ++missing;
    }
    if (missing == c->n) die(f->cmd, "no word of the counts is in the initial vectors");
    return W;
}

static int cmd_train(flags_t *f)
{
    const char *counts_path = flag_str(f, "counts"), *output = flag_str(f, "output");
    const char *method = flag_str(f, "method"), *init = flag_str(f, "init");
    const char *init_ctx = flag_str(f, "init-contexts"), *resume = flag_str(f, "resume");
    const char *direction = flag_str(f, "direction"), *curve = flag_str(f, "curve");
    const char *out_ctx = flag_str(f, "output-contexts"), *train_text = flag_str(f, "train");
    int epochs = (int)flag_num(f, "epochs", 1, 1, 1000);
    double alpha_sgd = flag_num(f, "alpha-sgd", 0.025, 1e-9, 10);
    size_t d = (size_t)flag_num(f, "size", 100, 1, 100000);
    double k = flag_num(f, "negative", 5, 1e-9, 1e9);
    int iters = (int)flag_num(f, "iter", 10, 0, 1e6);
    double eta = flag_num(f, "eta", 0, 0, 1e30);
    int safeguard = (int)flag_num(f, "safeguard", 1, 0, 1);
    int binary = (int)flag_num(f, "binary", 0, 0, 1);
    int q = (int)flag_num(f, "power-iters", 5, 0, 100);
    size_t oversample = (size_t)flag_num(f, "oversample", 0, 0, 1e6);
    size_t block = (size_t)flag_num(f, "block", 0, 0, 1e6);
    const char *svd_method = flag_str(f, "svd");
    uint64_t seed = (uint64_t)flag_num(f, "seed", 1, 0, 1e18);
    train_ctx t;
    ro_sgns_counts *c = NULL;
    ro_sgns_factors *x = NULL;
    ro_sgns_problem *p = NULL;
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    double t0 = now(), t_svd = 0, t_ro = 0;
    int is_ro;
    memset(&t, 0, sizeof t);
    t.eval_dir = flag_str(f, "eval");
    t.checkpoint = flag_str(f, "checkpoint");
    t.alpha = flag_num(f, "alpha", 0.5, -10, 10);
    t.quiet = flag_present(f, "quiet");
    t.cmd = f->cmd;
#ifdef _OPENMP
    if (flag_str(f, "threads")) omp_set_num_threads((int)flag_num(f, "threads", 1, 1, 1024));
#endif
    finish_flags(f, NULL);
    if (!counts_path) die(f->cmd, "-counts COUNTS is required");
    if (!output) die(f->cmd, "-output VECTORS is required");
    if (!method) method = "ro";
    if (strcmp(method, "ro") != 0 && strcmp(method, "svd") != 0 && strcmp(method, "sgd") != 0)
        die(f->cmd, "-method %s: expected ro, svd or sgd", method);
    if (strcmp(method, "sgd") == 0 && !train_text) die(f->cmd, "-method sgd needs -train TEXT");
    is_ro = strcmp(method, "ro") == 0;
    if (direction && strcmp(direction, "scaled") != 0 && strcmp(direction, "plain") != 0)
        die(f->cmd, "-direction %s: expected scaled or plain", direction);
    if (ro_sgns_counts_load_path(counts_path, &c, NULL, &err) != RO_SGNS_OK)
        die(f->cmd, "%s", err.message);
    t.counts = c;
    if (d > c->n)
        die(f->cmd, "-size %lu is larger than the vocabulary (%lu words)", (unsigned long)d,
            (unsigned long)c->n);
    if (strcmp(method, "sgd") == 0) { /* word2vec's SGD: W and C straight to files */
        ro_sgns_sgd_config sc = ro_sgns_sgd_config_default();
        ro_sgns_real *W = (ro_sgns_real *)malloc(c->n * d * sizeof(ro_sgns_real));
        ro_sgns_real *C = (ro_sgns_real *)malloc(c->n * d * sizeof(ro_sgns_real));
        const char **words = (const char **)malloc(c->n * sizeof(char *));
        ro_sgns_vectors *wv = NULL;
        size_t i;
        if (!W || !C || !words) die(f->cmd, "out of memory");
        sc.size = (int)d;
        sc.window = c->config.window;
        sc.negative = (int)k;
        sc.epochs = epochs;
        sc.alpha = alpha_sgd;
        sc.seed = seed;
        if (ro_sgns_sgd_train_path(train_text, &c->vocab, &sc, W, C, NULL, &err) != RO_SGNS_OK)
            die(f->cmd, "%s", err.message);
        for (i = 0; i < c->n; ++i) words[i] = c->vocab.word[i];
        if (ro_sgns_vectors_create(c->n, d, words, W, d, &wv, NULL, &err) != RO_SGNS_OK ||
            ro_sgns_vectors_save_path(wv, binary ? RO_SGNS_W2V_BINARY : RO_SGNS_W2V_TEXT, output,
                                      NULL, &err) != RO_SGNS_OK)
            die(f->cmd, "%s", err.message);
        ro_sgns_vectors_free(wv);
        if (out_ctx) {
            if (ro_sgns_vectors_create(c->n, d, words, C, d, &wv, NULL, &err) != RO_SGNS_OK ||
                ro_sgns_vectors_save_path(wv, binary ? RO_SGNS_W2V_BINARY : RO_SGNS_W2V_TEXT,
                                          out_ctx, NULL, &err) != RO_SGNS_OK)
                die(f->cmd, "%s", err.message);
            ro_sgns_vectors_free(wv);
        }
        if (!t.quiet)
            fprintf(stderr, "train: sgd d = %lu, %d epoch(s): %.1f s -> %s\n", (unsigned long)d,
                    epochs, now() - t0, output);
        free(W);
        free(C);
        free((void *)words);
        ro_sgns_counts_free(c);
        return 0;
    }
    if (resume) {
        if (ro_sgns_factors_load_path(resume, &x, NULL, &err) != RO_SGNS_OK) die(f->cmd, "%s", err.message);
        if (x->n != c->n || x->d != d)
            die(f->cmd, "checkpoint %s is %lu words x %lu, the run is %lu x %lu", resume,
                (unsigned long)x->n, (unsigned long)x->d, (unsigned long)c->n, (unsigned long)d);
    } else if (init && strcmp(init, "svd") != 0) {
        ro_sgns_vectors_format fmt = vectors_format(f, init);
        ro_sgns_vectors *w = load_vectors_or_die(f, init, fmt), *cv;
        ro_sgns_real *W = aligned_matrix(f, w, c, d), *C;
        if (init_ctx) {
            cv = load_vectors_or_die(f, init_ctx, vectors_format(f, init_ctx));
            C = aligned_matrix(f, cv, c, d);
            ro_sgns_vectors_free(cv);
        } else {
            C = W;
        }
        if (ro_sgns_factors_from_wc(c->n, c->n, d, W, C, &x, NULL, &err) != RO_SGNS_OK)
            die(f->cmd, "%s", err.message);
        if (C != W) free(C);
        free(W);
        ro_sgns_vectors_free(w);
    } else {
        ro_sgns_csr *A = NULL;
        ro_sgns_tsvd_config sc = ro_sgns_tsvd_config_default();
        sc.power_iters = q;
        sc.oversample = oversample;
        sc.block = block;
        if (svd_method && strcmp(svd_method, "subspace") == 0)
            sc.method = RO_SGNS_TSVD_SUBSPACE;
        else if (svd_method && strcmp(svd_method, "krylov") != 0)
            die(f->cmd, "-svd must be krylov or subspace, not '%s'", svd_method);
        sc.seed = seed;
        if (!t.quiet) fprintf(stderr, "SVD-SPPMI: k = %g, d = %lu ...\n", k, (unsigned long)d);
        if (ro_sgns_sppmi(c, k, 1, &A, NULL, &err) != RO_SGNS_OK ||
            ro_sgns_tsvd(A, d, &sc, &x, NULL, &err) != RO_SGNS_OK)
            die(f->cmd, "%s", err.message);
        ro_sgns_csr_free(A);
        t_svd = now() - t0;
        if (!t.quiet) fprintf(stderr, "SVD-SPPMI: %.1f s\n", t_svd);
    }
    if (is_ro && iters > (int)x->iteration) {
        ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
        double t1 = now(), F0;
        cfg.iterations = iters - (int)x->iteration;
        cfg.direction = direction && strcmp(direction, "plain") == 0 ? RO_SGNS_DIRECTION_PLAIN
                                                                     : RO_SGNS_DIRECTION_SCALED;
        cfg.step = eta > 0 ? eta : (cfg.direction == RO_SGNS_DIRECTION_PLAIN ? 5e-5 : 1.0);
        cfg.safeguard = safeguard;
        cfg.callback = on_step;
        cfg.user = &t;
        if (curve) {
            t.curve = fopen(curve, resume ? "ab" : "wb");
            if (!t.curve) die(f->cmd, "cannot write %s: %s", curve, strerror(errno));
            if (!resume) fprintf(t.curve, "iteration,F_e9,seconds,ws_sim,ws_rel,ws_full,simlex,men\n");
        }
        if (ro_sgns_problem_create(c, k, &p, NULL, &err) != RO_SGNS_OK) die(f->cmd, "%s", err.message);
        if (t.curve || !t.quiet) {
            double sc[5] = {NAN, NAN, NAN, NAN, NAN};
            ro_sgns_objective(p, x, &F0, NULL);
            if (t.eval_dir && point_vectors(x, c, t.alpha, &v, &err) == RO_SGNS_OK) {
                score_sets(v, t.eval_dir, sc);
                ro_sgns_vectors_free(v);
                v = NULL;
            }
            if (!t.quiet) {
                int s;
                fprintf(stderr, "iter %3llu  F %.5f e9 (start)", (unsigned long long)x->iteration,
                        F0 * 1e-9);
                if (t.eval_dir)
                    for (s = 0; s < 5; ++s) fprintf(stderr, "  %s %.3f", EVAL_NAMES[s], sc[s]);
                fputc('\n', stderr);
            }
            if (t.curve && !resume) {
                int s;
                fprintf(t.curve, "%llu,%.6f,0", (unsigned long long)x->iteration, F0 * 1e-9);
                for (s = 0; s < 5; ++s) fprintf(t.curve, ",%.4f", sc[s]);
                fputc('\n', t.curve);
            }
        }
        if (ro_sgns_ro_train(p, x, &cfg, &err) < 0) die(f->cmd, "%s", err.message);
        t_ro = now() - t1;
        if (t.curve) fclose(t.curve);
    }
    if (point_vectors(x, c, t.alpha, &v, &err) != RO_SGNS_OK) die(f->cmd, "%s", err.message);
    if (ro_sgns_vectors_save_path(v, binary ? RO_SGNS_W2V_BINARY : RO_SGNS_W2V_TEXT, output, NULL,
                                  &err) != RO_SGNS_OK)
        die(f->cmd, "%s", err.message);
    if (out_ctx) {
        ro_sgns_vectors *cv;
        if (point_vectors_kind(x, c, t.alpha, RO_SGNS_EMBED_C, &cv, &err) != RO_SGNS_OK ||
            ro_sgns_vectors_save_path(cv, binary ? RO_SGNS_W2V_BINARY : RO_SGNS_W2V_TEXT, out_ctx,
                                      NULL, &err) != RO_SGNS_OK)
            die(f->cmd, "%s", err.message);
        ro_sgns_vectors_free(cv);
    }
    if (!t.quiet)
        fprintf(stderr, "train: %s d = %lu: SVD %.1f s, RO %.1f s (%llu steps), total %.1f s -> %s\n",
                method, (unsigned long)d, t_svd, t_ro, (unsigned long long)x->iteration,
                now() - t0, output);
    ro_sgns_vectors_free(v);
    ro_sgns_problem_free(p);
    ro_sgns_factors_free(x);
    ro_sgns_counts_free(c);
    return 0;
}

/* ------------------------------------------------------ eval, neighbors */

static int cmd_eval(flags_t *f)
{
    const char *path = flag_str(f, "vectors"), *analogy = flag_str(f, "analogy");
    int fold = (int)flag_num(f, "fold-case", 0, 0, 1);
    ro_sgns_vectors_format fmt;
    ro_sgns_vectors *v;
    char *pos[256];
    int npos, i, failed = 0;
    (void)flag_present(f, "quiet");
    if (!path) die(f->cmd, "-vectors VECTORS is required");
    fmt = vectors_format(f, path);
    if (f->argc > 256) die(f->cmd, "too many arguments");
    npos = finish_flags(f, pos);
    if (npos == 0 && !analogy) die(f->cmd, "give at least one word-pair file (or -analogy FILE)");
    v = load_vectors_or_die(f, path, fmt);
    printf("%-24s %8s %8s %9s %9s\n", "pairs file", "spearman", "pearson", "used", "skipped");
    for (i = 0; i < npos; ++i) {
        ro_sgns_similarity_config cfg = ro_sgns_similarity_config_default();
        ro_sgns_similarity_result r;
        ro_sgns_error err;
        const char *base = strrchr(pos[i], '/') ? strrchr(pos[i], '/') + 1 : pos[i];
        cfg.fold_case = fold;
        if (ro_sgns_similarity_eval_path(v, pos[i], &cfg, &r, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "ro-sgns eval: %s: %s\n", pos[i], err.message);
            failed = 1;
            continue;
        }
        printf("%-24s %8.4f %8.4f %4lu/%-4lu %9lu\n", base, r.spearman, r.pearson,
               (unsigned long)r.pairs_used, (unsigned long)r.pairs_total,
               (unsigned long)(r.config.oov == RO_SGNS_OOV_SKIP ? r.pairs_oov : 0));
    }
    printf("(out-of-vocabulary pairs skipped; case folding %s; all %lu rows)\n",
           fold ? "on" : "off", (unsigned long)v->n);
    if (analogy) {
        ro_sgns_analogies *q = NULL;
        ro_sgns_analogy_result *r = NULL;
        ro_sgns_error err;
        char line[512];
        if (ro_sgns_analogies_load_path(analogy, &q, NULL, &err) != RO_SGNS_OK ||
            ro_sgns_analogy_eval(v, q, NULL, &r, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "ro-sgns eval: %s: %s\n", analogy, err.message);
            failed = 1;
        } else {
            ro_sgns_analogy_describe(r, line, sizeof line);
            printf("analogies %s: %s\n", analogy, line);
        }
        ro_sgns_analogy_result_free(r);
        ro_sgns_analogies_free(q);
    }
    ro_sgns_vectors_free(v);
    return failed;
}

static int cmd_neighbors(flags_t *f)
{
    const char *path = flag_str(f, "vectors");
    size_t k = (size_t)flag_num(f, "k", 10, 1, 10000), j, found;
    ro_sgns_vectors *v;
    ro_sgns_neighbor *nb;
    char *pos[256];
    int npos, i, failed = 0;
    ro_sgns_vectors_format fmt;
    (void)flag_present(f, "quiet");
    if (!path) die(f->cmd, "-vectors VECTORS is required");
    fmt = vectors_format(f, path);
    if (f->argc > 256) die(f->cmd, "too many arguments");
    npos = finish_flags(f, pos);
    if (npos == 0) die(f->cmd, "give at least one word");
    v = load_vectors_or_die(f, path, fmt);
    nb = (ro_sgns_neighbor *)malloc(k * sizeof *nb);
    if (!nb) die(f->cmd, "out of memory");
    for (i = 0; i < npos; ++i) {
        ro_sgns_error err;
        if (ro_sgns_neighbors_of_word(v, pos[i], k, nb, &found, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "ro-sgns neighbors: %s: %s\n", pos[i], err.message);
            failed = 1;
            continue;
        }
        printf("%s:\n", pos[i]);
        for (j = 0; j < found; ++j) printf("  %-20s %.4f\n", v->words[nb[j].row], nb[j].similarity);
    }
    free(nb);
    ro_sgns_vectors_free(v);
    return failed;
}

static int cmd_objective(flags_t *f)
{
    const char *counts_path = flag_str(f, "counts"), *wpath = flag_str(f, "vectors");
    const char *cpath = flag_str(f, "contexts");
    double k = flag_num(f, "negative", 5, 1e-9, 1e9), F;
    ro_sgns_counts *c = NULL;
    ro_sgns_problem *p = NULL;
    ro_sgns_vectors *w, *cv;
    ro_sgns_real *W, *C;
    ro_sgns_error err;
    ro_sgns_vectors_format fw, fc;
    (void)flag_present(f, "quiet");
    if (!counts_path || !wpath) die(f->cmd, "-counts COUNTS and -vectors W are required");
    fw = vectors_format(f, wpath);
    fc = cpath ? vectors_format(f, cpath) : fw;
    finish_flags(f, NULL);
    if (ro_sgns_counts_load_path(counts_path, &c, NULL, &err) != RO_SGNS_OK) die(f->cmd, "%s", err.message);
    w = load_vectors_or_die(f, wpath, fw);
    W = aligned_matrix(f, w, c, w->d);
    if (cpath) {
        cv = load_vectors_or_die(f, cpath, fc);
        C = aligned_matrix(f, cv, c, w->d);
        ro_sgns_vectors_free(cv);
    } else {
        C = W;
    }
    if (ro_sgns_problem_create(c, k, &p, NULL, &err) != RO_SGNS_OK ||
        ro_sgns_objective_wc(p, W, C, w->d, &F, &err) != RO_SGNS_OK)
        die(f->cmd, "%s", err.message);
    printf("F = %.6f e9 (k = %g, %lu words, d = %lu, contexts %s)\n", F * 1e-9, k,
           (unsigned long)c->n, (unsigned long)w->d, cpath ? cpath : "= words");
    if (C != W) free(C);
    free(W);
    ro_sgns_vectors_free(w);
    ro_sgns_problem_free(p);
    ro_sgns_counts_free(c);
    return 0;
}

int main(int argc, char **argv)
{
    flags_t f;
    int rc;
    if (argc < 2 || strcmp(argv[1], "-help") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? 1 : 0;
    }
    f.argc = argc - 2;
    f.argv = argv + 2;
    f.cmd = argv[1];
    f.used = (unsigned char *)calloc((size_t)argc + 1, 1);
    if (!f.used) return 1;
    if (flag_present(&f, "help") || flag_present(&f, "-help")) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (strcmp(argv[1], "count") == 0) rc = cmd_count(&f);
    else if (strcmp(argv[1], "train") == 0) rc = cmd_train(&f);
    else if (strcmp(argv[1], "eval") == 0) rc = cmd_eval(&f);
    else if (strcmp(argv[1], "neighbors") == 0) rc = cmd_neighbors(&f);
    else if (strcmp(argv[1], "objective") == 0) rc = cmd_objective(&f);
    else {
        fprintf(stderr, "ro-sgns: unknown command '%s' (see ro-sgns -help)\n", argv[1]);
        rc = 1;
    }
    free(f.used);
    return rc;
}
