/* bench/quality.c - how good the vectors are, configuration by configuration:
   the ablation driver behind docs/ABLATION.md (make ablation).

   Build (from the repository root):   make build/bench_quality
   Run:
       ./build/bench_quality [options] SPEC...
   options:
       -counts FILE   the counts (ro_sgns_counts_save_path), default
                      /work/cache/corpus_w5_m200.counts
       -corpus FILE   the text, for SGD-SGNS (default /work/cache/corpus.txt)
       -data DIR      the evaluation sets: DIR/wordsim/{ws353_sim, ws353_rel,
                      ws353, simlex999, men}.txt and DIR/analogy/msr.txt
                      (default ../shared/data)
       -cache DIR     SGD-SGNS's W and C and the SVD-SPPMI starts are kept
                      here and reused (default build/quality)
       -no-analogy    skip MSR (the slowest evaluation)
       -count SETTINGS  count the corpus instead of loading -counts (cached
                      in the cache directory): window 5 and min_count 200
                      as the default counts, plus "sample=T" (subsampling,
                      0 = off), "dynamic=M" (0 fixed, 1 sampled as
                      word2vec, 2 weighted (L - dist + 1) / L) and
                      "close=G" (1: dropped words leave no gap, as word2vec
                      removes them), comma-separated, e.g.
                      -count sample=1e-5,close=1
   A SPEC is one argument: a method and key=value settings, e.g.
       "svd d=100 embed=w;w+c eig=0.5;0"
       "sgd d=100 seed=1 threads=2 embed=w;w+c"
       "ro d=100 cds=0.75 start=sgd iters=10 embed=w+c best=1"
   file  a word2vec binary file (path=FILE), e.g. word2vec C's vectors;
         F and the time are not known (0)
   point a saved point (path=FILE, a checkpoint, e.g. from save=FILE),
         scored in its forms; the time is not known (0)
   svd   SVD-SPPMI: the truncated SVD of SPPMI (k, cds) [paper 5]
   sgd   SGD-SGNS: section 9 on the corpus, with the counts' vocabulary
   ro    RO-SGNS: section 4 from start=svd (SVD-SPPMI, the paper) or
         start=sgd (the SGD-SGNS W and C of the same d and seed, through
         ro_sgns_factors_from_wc)
   keys: d (100), k (5), cds (1: P(c) of the objective; for svd, of
   SPPMI), scds (1: SPPMI's cds for ro's start=svd), iters (10), step (1, the scaled direction's eta),
   seed (1), threads (2, SGD's), epochs (1, SGD's), sample (0, SGD's),
   embed (w; also c, w+c, and w+c/n: W and C scaled to unit rows before
   the sum, as hyperwords does; several with ';' give a row each), eig (0.5, the
   exponent of Sigma in W = U P Sigma^eig; several with ';'), best (0; 1:
   keep the iterate, the start included, with the best dev mean of the
   first embed/eig form, scored in the progress callback; each step's
   score goes to stderr), save (FILE: write the point as a checkpoint),
   label (the
   row's name: the rest of the spec, so it comes last).
   Every row: Spearman on the five similarity sets (pairs with an
   out-of-vocabulary word skipped, no case folding), their mean ("dev
   mean"), MSR analogies by 3CosAdd and 3CosMul (epsilon 0.001, query words
   excluded, all rows), F x 1e-9 under the paper's objective (cds = 1,
   whatever the run optimized, so that rows compare), and the wall seconds
   that made the vectors from the counts (the start included: SVD-SPPMI,
   or SGD-SGNS for start=sgd; a cached start counts with the time it took
   when it was made). Rows go to stdout as Markdown; the CPU and the load
   go first. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* glibc: madvise(MADV_HUGEPAGE), the huge pages SGD's W and C get */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#define NSETS 5
static const char *const set_file[NSETS] = {"ws353_sim", "ws353_rel", "ws353", "simlex999",
                                            "men"};
static const char *const set_name[NSETS] = {"ws-sim", "ws-rel", "ws-full", "simlex", "men"};

typedef struct {
    ro_sgns_counts *co;
    ro_sgns_problem *paper; /* cds = 1: the F every row reports */
    ro_sgns_pairs *pairs[NSETS];
    ro_sgns_analogies *msr;
    int have_msr;
    const char *corpus, *cache;
    char tag[256];   /* the counts file's name: the SVD starts depend on it */
} bench;

typedef struct {
    char method[8];
    size_t d;
    double k, cds, scds, step, sample;
    int iters, threads, epochs, best;
    uint64_t seed;
    char embed[64], eig[64], label[128], path[512], save[512];
} spec;

typedef struct {
    double rho[NSETS], mean, add, mul;
} scores;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what, const ro_sgns_error *err)
{
    fprintf(stderr, "bench_quality: %s: %s\n", what, err ? err->message : "");
    exit(1);
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "bench_quality: out of memory (%lu bytes)\n", (unsigned long)size);
        exit(1);
    }
    return p;
}

/* ---- evaluation: the vectors in memory, the library's section 8 ----------- */

/* Spearman on the five sets, their mean; MSR when analogies is set */
static void evaluate_vectors(const bench *b, const ro_sgns_vectors *v, int analogies, scores *s)
{
    ro_sgns_error err;
    int i;
    s->mean = 0;
    for (i = 0; i < NSETS; ++i) {
        ro_sgns_similarity_result r;
        if (ro_sgns_similarity_eval(v, b->pairs[i], NULL, &r, NULL, &err) != RO_SGNS_OK)
            die(set_name[i], &err);
        s->rho[i] = r.spearman;
        s->mean += r.spearman / NSETS;
    }
    s->add = s->mul = -1;
    if (analogies && b->have_msr) {
        ro_sgns_analogy_config ac = ro_sgns_analogy_config_default();
        ro_sgns_analogy_result *r = NULL;
        if (ro_sgns_analogy_eval(v, b->msr, &ac, &r, NULL, &err) != RO_SGNS_OK) die("msr", &err);
        s->add = r->accuracy;
        ro_sgns_analogy_result_free(r);
        ac.method = RO_SGNS_3COSMUL;
        if (ro_sgns_analogy_eval(v, b->msr, &ac, &r, NULL, &err) != RO_SGNS_OK) die("msr", &err);
        s->mul = r->accuracy;
        ro_sgns_analogy_result_free(r);
    }
}

/* the same for n x d rows E of the counts' vocabulary */
static void evaluate(const bench *b, const ro_sgns_real *E, size_t d, int analogies, scores *s)
{
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    if (ro_sgns_vectors_create(b->co->n, d, (const char *const *)b->co->vocab.word, E, d, &v,
                               NULL, &err) != RO_SGNS_OK)
        die("vectors", &err);
    evaluate_vectors(b, v, analogies, s);
    ro_sgns_vectors_free(v);
}

static void print_row(const char *label, const scores *s, double F, double seconds)
{
    int i;
    printf("| %s |", label);
    for (i = 0; i < NSETS; ++i) printf(" %.3f |", s->rho[i]);
    printf(" **%.3f** |", s->mean);
    if (s->add >= 0)
        printf(" %.3f | %.3f |", s->add, s->mul);
    else
        printf(" - | - |");
    printf(" %.4f | %.1f |\n", F * 1e-9, seconds);
    fflush(stdout);
}

/* ---- settings -------------------------------------------------------------- */

static spec parse_spec(const char *text)
{
    spec s;
    char buf[512], *tok, *save = NULL;
    memset(&s, 0, sizeof s);
    s.d = 100;
    s.k = 5;
    s.cds = 1;
    s.scds = 1;
    s.step = 1;
    s.iters = 10;
    s.threads = 2;
    s.epochs = 1;
    s.seed = 1;
    strcpy(s.embed, "w");
    strcpy(s.eig, "0.5");
    snprintf(buf, sizeof buf, "%s", text);
    tok = strtok_r(buf, " ", &save);
    if (!tok || (strcmp(tok, "svd") && strcmp(tok, "sgd") && strcmp(tok, "ro") &&
                 strcmp(tok, "file") && strcmp(tok, "point"))) {
        fprintf(stderr, "bench_quality: a spec starts with svd, sgd, ro, file or point: '%s'\n",
                text);
        exit(2);
    }
    snprintf(s.method, sizeof s.method, "%s", tok);
    while ((tok = strtok_r(NULL, " ", &save)) != NULL) {
        char *eq = strchr(tok, '=');
        const char *val;
        if (!strncmp(tok, "label=", 6)) { /* the rest of the spec, spaces and all */
            snprintf(s.label, sizeof s.label, "%s", text + (tok - buf) + 6);
            break;
        }
        if (!eq) {
            fprintf(stderr, "bench_quality: '%s' is not key=value\n", tok);
            exit(2);
        }
        *eq = '\0';
        val = eq + 1;
        if (!strcmp(tok, "d")) s.d = (size_t)atol(val);
        else if (!strcmp(tok, "k")) s.k = atof(val);
        else if (!strcmp(tok, "cds")) s.cds = atof(val);
        else if (!strcmp(tok, "scds")) s.scds = atof(val);
        else if (!strcmp(tok, "step")) s.step = atof(val);
        else if (!strcmp(tok, "sample")) s.sample = atof(val);
        else if (!strcmp(tok, "iters")) s.iters = atoi(val);
        else if (!strcmp(tok, "threads")) s.threads = atoi(val);
        else if (!strcmp(tok, "epochs")) s.epochs = atoi(val);
        else if (!strcmp(tok, "best")) s.best = atoi(val);
        else if (!strcmp(tok, "seed")) s.seed = (uint64_t)atoll(val);
        else if (!strcmp(tok, "start")) {
            if (strcmp(val, "svd") && strcmp(val, "sgd")) {
                fprintf(stderr, "bench_quality: start=svd or start=sgd\n");
                exit(2);
            }
            s.method[2] = val[1] == 'g' ? 'S' : '\0'; /* "roS": from SGD */
        } else if (!strcmp(tok, "embed")) snprintf(s.embed, sizeof s.embed, "%s", val);
        else if (!strcmp(tok, "eig")) snprintf(s.eig, sizeof s.eig, "%s", val);
        else if (!strcmp(tok, "path")) snprintf(s.path, sizeof s.path, "%s", val);
        else if (!strcmp(tok, "save")) snprintf(s.save, sizeof s.save, "%s", val);
        else {
            fprintf(stderr, "bench_quality: unknown key '%s'\n", tok);
            exit(2);
        }
    }
    if (!strcmp(s.method, "svd")) s.scds = s.cds; /* SVD-SPPMI: cds is SPPMI's */
    return s;
}

/* the i-th ';'-separated item of list into out; 0 when there is none */
static int list_item(const char *list, int i, char *out, size_t size)
{
    const char *p = list;
    size_t len;
    while (i-- > 0) {
        p = strchr(p, ';');
        if (!p) return 0;
        ++p;
    }
    len = strcspn(p, ";");
    if (len == 0 || len >= size) return 0;
    memcpy(out, p, len);
    out[len] = '\0';
    return 1;
}

static ro_sgns_embedding_kind embed_kind(const char *name)
{
    if (!strcmp(name, "w")) return RO_SGNS_EMBED_W;
    if (!strcmp(name, "c")) return RO_SGNS_EMBED_C;
    if (!strcmp(name, "w+c") || !strcmp(name, "w+c/n")) return RO_SGNS_EMBED_W_PLUS_C;
    fprintf(stderr, "bench_quality: embed=w, c, w+c or w+c/n, not '%s'\n", name);
    exit(2);
}

/* scale each of the n rows of A (n x d) to unit length (zero rows stay) */
static void normalize_rows(ro_sgns_real *A, size_t n, size_t d)
{
    size_t i, j;
    for (i = 0; i < n; ++i) {
        double s = 0;
        for (j = 0; j < d; ++j) s += (double)A[i * d + j] * A[i * d + j];
        if (s > 0)
            for (j = 0; j < d; ++j) A[i * d + j] = (ro_sgns_real)(A[i * d + j] / sqrt(s));
    }
}

/* E = the form named `form` of the point x (or of SGD's W and C when x is
   NULL): w, c, w+c, or w+c/n -- W and C each scaled to unit rows before the
   sum, as hyperwords forms w+c (Levy, Goldberg and Dagan 2015) */
static void embed_form(const ro_sgns_factors *x, const ro_sgns_real *W, const ro_sgns_real *C,
                       size_t n, size_t d, const char *form, double eig, ro_sgns_real *E)
{
    ro_sgns_error err;
    size_t i;
    ro_sgns_embedding_kind kind = embed_kind(form);
    if (!strcmp(form, "w+c/n")) {
        ro_sgns_real *T = (ro_sgns_real *)xmalloc(n * d * sizeof *T);
        embed_form(x, W, C, n, d, "w", eig, E);
        embed_form(x, W, C, n, d, "c", eig, T);
        normalize_rows(E, n, d);
        normalize_rows(T, n, d);
        for (i = 0; i < n * d; ++i) E[i] += T[i];
        free(T);
        return;
    }
    if (x) {
        if (ro_sgns_factors_embeddings(x, eig, kind, E, d, NULL, &err) != RO_SGNS_OK)
            die("embeddings", &err);
        return;
    }
    for (i = 0; i < n * d; ++i)
        E[i] = kind == RO_SGNS_EMBED_W ? W[i] : kind == RO_SGNS_EMBED_C ? C[i] : W[i] + C[i];
}

/* ---- the cache: a start made once, with the seconds it took --------------- */

static int cache_seconds(const char *path, double *sec)
{
    char tpath[1100];
    FILE *f;
    int ok;
    snprintf(tpath, sizeof tpath, "%s.seconds", path);
    f = fopen(tpath, "r");
    if (!f) return 0;
    ok = fscanf(f, "%lf", sec) == 1;
    fclose(f);
    return ok;
}

static void cache_save_seconds(const char *path, double sec)
{
    char tpath[1100];
    FILE *f;
    snprintf(tpath, sizeof tpath, "%s.seconds", path);
    f = fopen(tpath, "w");
    if (f) {
        fprintf(f, "%.3f\n", sec);
        fclose(f);
    }
}

/* SGD-SGNS's W and C (n x d each) for this d, seed and settings: from the
   cache or trained now */
static void sgd_wc(const bench *b, const spec *s, ro_sgns_real *W, ro_sgns_real *C, double *sec)
{
    char path[1024];
    size_t n = b->co->n, nd = n * s->d;
    FILE *f;
    snprintf(path, sizeof path, "%s/sgd_d%lu_s%llu_t%d_e%d_x%g.wc", b->cache, (unsigned long)s->d,
             (unsigned long long)s->seed, s->threads, s->epochs, s->sample);
    f = fopen(path, "rb");
    if (f && fread(W, sizeof *W, nd, f) == nd && fread(C, sizeof *C, nd, f) == nd &&
        cache_seconds(path, sec)) {
        fclose(f);
        return;
    }
    if (f) fclose(f);
    {
        ro_sgns_sgd_config cfg = ro_sgns_sgd_config_default();
        ro_sgns_error err;
        double t0 = now();
        cfg.size = (int)s->d;
        cfg.window = b->co->config.window;
        cfg.negative = (int)s->k;
        cfg.sample = s->sample;
        cfg.epochs = s->epochs;
        cfg.threads = s->threads;
        cfg.seed = s->seed;
        if (ro_sgns_sgd_train_path(b->corpus, &b->co->vocab, &cfg, W, C, NULL, &err) != RO_SGNS_OK)
            die("sgd", &err);
        *sec = now() - t0;
    }
    f = fopen(path, "wb");
    if (f) {
        fwrite(W, sizeof *W, nd, f);
        fwrite(C, sizeof *C, nd, f);
        fclose(f);
        cache_save_seconds(path, *sec);
    }
}

/* The SVD-SPPMI start X0 = U S V^T of SPPMI(k, cds) */
static ro_sgns_factors *svd_start(const bench *b, const spec *s, double *sec)
{
    char path[1024];
    ro_sgns_factors *x = NULL;
    ro_sgns_error err;
    snprintf(path, sizeof path, "%s/svd_%s_d%lu_k%g_cds%g.fx", b->cache, b->tag,
             (unsigned long)s->d, s->k, s->scds);
    if (cache_seconds(path, sec) &&
        ro_sgns_factors_load_path(path, &x, NULL, &err) == RO_SGNS_OK)
        return x;
    {
        ro_sgns_csr *sppmi = NULL;
        double t0 = now();
        if (ro_sgns_sppmi(b->co, s->k, s->scds, &sppmi, NULL, &err) != RO_SGNS_OK)
            die("sppmi", &err);
        if (ro_sgns_tsvd(sppmi, s->d, NULL, &x, NULL, &err) != RO_SGNS_OK) die("tsvd", &err);
        ro_sgns_csr_free(sppmi);
        *sec = now() - t0;
    }
    if (ro_sgns_factors_save_path(x, path, &err) == RO_SGNS_OK) cache_save_seconds(path, *sec);
    return x;
}

/* ---- best-iterate stopping: the progress callback keeps the best point ---- */

typedef struct {
    const bench *b;
    char form[32];
    double eig;
    ro_sgns_real *E;         /* n x d workspace */
    ro_sgns_factors *best;   /* a copy of the best point so far */
    double best_score;
    uint64_t best_step;
    double eval_seconds;     /* spent scoring, inside the training time */
} keeper;

static void copy_factors(ro_sgns_factors *dst, const ro_sgns_factors *src)
{
    memcpy(dst->U, src->U, src->n * src->d * sizeof(ro_sgns_real));
    memcpy(dst->S, src->S, src->d * src->d * sizeof(ro_sgns_real));
    memcpy(dst->V, src->V, src->m * src->d * sizeof(ro_sgns_real));
    dst->iteration = src->iteration;
    dst->next_step = src->next_step;
}

/* score x; keep a copy when it is the best so far */
static void keeper_offer(keeper *kp, const ro_sgns_factors *x)
{
    scores sc;
    double t0 = now();
    embed_form(x, NULL, NULL, x->n, x->d, kp->form, kp->eig, kp->E);
    evaluate(kp->b, kp->E, x->d, 0, &sc);
    fprintf(stderr, "  step %llu: dev mean %.3f\n", (unsigned long long)x->iteration, sc.mean);
    if (sc.mean > kp->best_score) {
        kp->best_score = sc.mean;
        kp->best_step = x->iteration;
        copy_factors(kp->best, x);
    }
    kp->eval_seconds += now() - t0;
}

static int keep_best(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    (void)pr;
    keeper_offer((keeper *)user, x);
    return 0; /* never stop: the run goes on, the best point is kept aside */
}

/* ---- one spec ------------------------------------------------------------ */

/* a vectors file (word2vec binary), e.g. word2vec C's, scored the same way */
static void run_file(const bench *b, const spec *s)
{
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    scores sc;
    if (ro_sgns_vectors_load_path(s->path, RO_SGNS_W2V_BINARY, 0, &v, NULL, &err) != RO_SGNS_OK)
        die(s->path, &err);
    evaluate_vectors(b, v, 1, &sc);
    print_row(s->label[0] ? s->label : s->path, &sc, 0, 0);
    ro_sgns_vectors_free(v);
}

static void run(const bench *b, const spec *s)
{
    const size_t n = b->co->n, d = s->d;
    ro_sgns_real *E = (ro_sgns_real *)xmalloc(n * d * sizeof *E);
    ro_sgns_error err;
    char form[32], eigs[32], label[256];
    double sec = 0, F = 0;
    int fi, ei;
    ro_sgns_factors *x = NULL;
    ro_sgns_real *W = NULL, *C = NULL;
    uint64_t best_step = 0;
    const char *what = s->method;

    if (!strcmp(s->method, "sgd") || !strcmp(s->method, "roS")) {
        W = (ro_sgns_real *)xmalloc(n * d * sizeof *W);
        C = (ro_sgns_real *)xmalloc(n * d * sizeof *C);
        sgd_wc(b, s, W, C, &sec);
    }
    if (!strcmp(s->method, "sgd")) {
        if (ro_sgns_objective_wc(b->paper, W, C, d, &F, &err) != RO_SGNS_OK) die("F", &err);
        what = "SGD-SGNS";
    } else {
        double t0;
        if (!strcmp(s->method, "point")) {
            if (ro_sgns_factors_load_path(s->path, &x, NULL, &err) != RO_SGNS_OK)
                die(s->path, &err);
            if (x->n != n || x->d != d) {
                fprintf(stderr, "bench_quality: %s is not n = %lu, d = %lu\n", s->path,
                        (unsigned long)n, (unsigned long)d);
                exit(2);
            }
        } else if (!strcmp(s->method, "roS")) {
            t0 = now();
            if (ro_sgns_factors_from_wc(n, n, d, W, C, &x, NULL, &err) != RO_SGNS_OK)
                die("from_wc", &err);
            sec += now() - t0;
        } else {
            x = svd_start(b, s, &sec);
        }
        what = s->method[0] == 'p' ? "point" : "SVD-SPPMI";
        if (s->method[0] == 'r') {
            ro_sgns_problem *p = NULL;
            ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
            keeper kp;
            ro_sgns_result rc;
            memset(&kp, 0, sizeof kp);
            t0 = now();
            if (ro_sgns_problem_create(b->co, s->k, s->cds, &p, NULL, &err) != RO_SGNS_OK)
                die("problem", &err);
            cfg.iterations = s->iters;
            cfg.step = s->step;
            if (s->best) {
                char f0[32] = "w", e0[32] = "0.5";
                list_item(s->embed, 0, f0, sizeof f0);
                list_item(s->eig, 0, e0, sizeof e0);
                kp.b = b;
                (void)embed_kind(f0);
                snprintf(kp.form, sizeof kp.form, "%s", f0);
                kp.eig = atof(e0);
                kp.E = E;
                kp.best_score = -2;
                if (ro_sgns_factors_create(n, n, d, &kp.best, NULL, &err) != RO_SGNS_OK)
                    die("factors", &err);
                keeper_offer(&kp, x); /* the start is a candidate too */
                cfg.callback = keep_best;
                cfg.user = &kp;
            }
            rc = ro_sgns_ro_train(p, x, &cfg, &err);
            if (rc != RO_SGNS_OK) die("ro_train", &err);
            sec += now() - t0;
            if (s->best) {
                copy_factors(x, kp.best);
                best_step = kp.best_step;
                ro_sgns_factors_free(kp.best);
            }
            ro_sgns_problem_free(p);
            what = "RO-SGNS";
        }
        if (s->save[0] && ro_sgns_factors_save_path(x, s->save, &err) != RO_SGNS_OK)
            die(s->save, &err);
        if (ro_sgns_objective(b->paper, x, &F, &err) != RO_SGNS_OK) die("F", &err);
    }

    for (fi = 0; list_item(s->embed, fi, form, sizeof form); ++fi)
        for (ei = 0; list_item(s->eig, ei, eigs, sizeof eigs); ++ei) {
            scores sc;
            if (!x && ei > 0) break; /* SGD's W and C have no eigenvalue exponent */
            embed_form(x, W, C, n, d, form, atof(eigs), E);
            evaluate(b, E, d, 1, &sc);
            if (s->label[0])
                snprintf(label, sizeof label, "%s, %s%s%s", s->label, form, x ? ", eig " : "",
                         x ? eigs : "");
            else
                snprintf(label, sizeof label, "%s d=%lu %s%s%s", what, (unsigned long)d, form,
                         x ? ", eig " : "", x ? eigs : "");
            if (s->best) {
                size_t len = strlen(label);
                snprintf(label + len, sizeof label - len, ", best step %llu",
                         (unsigned long long)best_step);
            }
            print_row(label, &sc, F, sec);
        }
    ro_sgns_factors_free(x);
    free(W);
    free(C);
    free(E);
}

/* "<!-- CPU, threads, load, date -->": what the times were measured on */
static void machine_line(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512], cpu[256] = "unknown CPU", when[64];
    double load[3] = {-1, -1, -1};
    time_t t = time(NULL);
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon || !colon[1]) continue;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(cpu, sizeof cpu, "%s", colon + 2);
        break;
    }
    if (f) fclose(f);
    f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
    if (f) fclose(f);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    printf("<!-- %s, %d OpenMP threads, load %.2f %.2f %.2f, %s -->\n", cpu,
           ro_sgns__num_threads(), load[0], load[1], load[2], when);
}

int main(int argc, char **argv)
{
    bench b;
    const char *counts = "/work/cache/corpus_w5_m200.counts", *data = "../shared/data";
    ro_sgns_error err;
    char path[1024];
    const char *count_settings = NULL;
    int i, analogies = 1;
    memset(&b, 0, sizeof b);
    b.corpus = "/work/cache/corpus.txt";
    b.cache = "build/quality";
    for (i = 1; i < argc && argv[i][0] == '-'; ++i) {
        if (!strcmp(argv[i], "-no-analogy")) {
            analogies = 0;
            continue;
        }
        if (i + 1 >= argc) break;
        if (!strcmp(argv[i], "-counts")) counts = argv[++i];
        else if (!strcmp(argv[i], "-corpus")) b.corpus = argv[++i];
        else if (!strcmp(argv[i], "-data")) data = argv[++i];
        else if (!strcmp(argv[i], "-cache")) b.cache = argv[++i];
        else if (!strcmp(argv[i], "-count")) count_settings = argv[++i];
        else {
            fprintf(stderr, "bench_quality: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "usage: bench_quality [-counts F] [-corpus F] [-data DIR] [-cache DIR] "
                        "[-no-analogy] SPEC...\n");
        return 2;
    }
    mkdir(b.cache, 0777);
    if (count_settings) {
        ro_sgns_count_config cc = ro_sgns_count_config_default();
        const char *q = count_settings;
        static char cpath[1024];
        cc.window = 5;
        cc.min_count = 200;
        while (*q) {
            if (!strncmp(q, "sample=", 7)) cc.sample = atof(q + 7);
            else if (!strncmp(q, "dynamic=", 8)) cc.dynamic_window = atoi(q + 8);
            else if (!strncmp(q, "close=", 6)) cc.close_gaps = atoi(q + 6);
            else {
                fprintf(stderr, "bench_quality: -count: unknown '%s'\n", q);
                return 2;
            }
            q += strcspn(q, ",");
            if (*q == ',') ++q;
        }
        snprintf(cpath, sizeof cpath, "%s/counts_w5_m200_s%g_dw%d_cg%d.counts", b.cache,
                 cc.sample, cc.dynamic_window, cc.close_gaps);
        counts = cpath;
        if (ro_sgns_counts_load_path(counts, &b.co, NULL, &err) != RO_SGNS_OK) {
            double t0 = now();
            if (ro_sgns_count_path(b.corpus, &cc, &b.co, NULL, &err) != RO_SGNS_OK)
                die("count", &err);
            fprintf(stderr, "bench_quality: counted %s in %.1f s\n", counts, now() - t0);
            ro_sgns_counts_save_path(b.co, counts, &err);
        }
    } else if (ro_sgns_counts_load_path(counts, &b.co, NULL, &err) != RO_SGNS_OK) {
        die(counts, &err);
    }
    {
        const char *base = strrchr(counts, '/');
        snprintf(b.tag, sizeof b.tag, "%.255s", base ? base + 1 : counts);
    }
    if (ro_sgns_problem_create(b.co, 5, 1.0, &b.paper, NULL, &err) != RO_SGNS_OK)
        die("problem", &err);
    for (int s = 0; s < NSETS; ++s) {
        snprintf(path, sizeof path, "%s/wordsim/%s.txt", data, set_file[s]);
        if (ro_sgns_pairs_load_path(path, &b.pairs[s], NULL, &err) != RO_SGNS_OK) die(path, &err);
    }
    snprintf(path, sizeof path, "%s/analogy/msr.txt", data);
    b.have_msr = analogies && ro_sgns_analogies_load_path(path, &b.msr, NULL, &err) == RO_SGNS_OK;
    machine_line();
    printf("| vectors (counts %s: n = %lu) | ws-sim | ws-rel | ws-full | simlex | men | dev mean "
           "| MSR add | MSR mul | F x 1e-9 | wall s |\n",
           counts, (unsigned long)b.co->n);
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    fflush(stdout);
    for (; i < argc; ++i) {
        spec s = parse_spec(argv[i]);
        if (!strcmp(s.method, "file"))
            run_file(&b, &s);
        else
            run(&b, &s);
    }
    for (i = 0; i < NSETS; ++i) ro_sgns_pairs_free(b.pairs[i]);
    if (b.have_msr) ro_sgns_analogies_free(b.msr);
    ro_sgns_problem_free(b.paper);
    ro_sgns_counts_free(b.co);
    return 0;
}
