/* ro_sgns_cli.c - the ro-sgns command-line program, built on the public API of
   ro_sgns.h only.

     ro-sgns train     -train TEXT -output VECTORS [-method ro|svd|sgd] [flags]
     ro-sgns count     -train TEXT -output COUNTS [flags]
     ro-sgns eval      -vectors VECTORS [PAIRS_FILE|DIR ...] [-analogy FILE]
     ro-sgns neighbors -vectors VECTORS WORD [-WORD +WORD ...]
     ro-sgns objective -counts COUNTS -vectors W [-contexts C]

   Flags mean what they mean in word2vec where word2vec has them, and what
   they mean in hyperwords otherwise; `ro-sgns COMMAND -help` lists each
   command's flags with their defaults (taken from the library's
   *_config_default() where it has one) and its file formats.

   How the program is built: every command's flags are one table (name,
   type, range, where it applies, help), so parsing, range checks, the
   "does not apply to this method" errors and the help text come from the
   same rows. Every allocation is registered with the `cli` object; an
   error prints one line and longjmps back to main, which frees everything
   registered, so no error path leaks (tests/test_cli.sh runs the error
   cases under AddressSanitizer's leak checker). Library callbacks never
   longjmp: they record the error and ask the library to stop. Progress
   goes to stderr (redrawn in place on a terminal, a line every 10 s
   otherwise, nothing with -quiet), results to stdout. */
#define _XOPEN_SOURCE 700 /* POSIX 2008 with XSI: stat, lstat, realpath, fileno, isatty, opendir */
#define _DEFAULT_SOURCE /* glibc: madvise(MADV_HUGEPAGE), the huge pages SGD's W and C get */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The largest |value| written as a vector: entries of X = W C^T are
   log-odds (a few tens at most), and with -eig <= 1 no row of W or C of
   a sensible solution comes near this; beyond it the run has diverged. */
#define CLI_MAX_ABS 1e6
/* at least this many usable pairs (or questions) make a score */
#define CLI_MIN_ITEMS 3
/* fewer tokens than this get a warning that the vectors will mean nothing */
#define CLI_FEW_TOKENS 1000
#define CLI_MAX_OWNED 256
#define CLI_MAX_SETS 64
#define CLI_MAX_LIST 32
#define CLI_MAX_NEGATIVE 1000.0
/* the SGD start (-init sgd, the default with -train): 2 virtual workers, so
   the same bits on any thread count and both cores of the machines it was
   measured on busy; three epochs over this share of the text, subsampled
   at 1e-4, which makes an epoch a third cheaper than word2vec's 1e-3 (docs/
   ABLATION.md, "The SGD start", "The fold's start" and "The objective SGD
   sampled": the third epoch raised MSR by 0.017 at 183k words) */
#define CLI_INIT_WORKERS 2
#define CLI_INIT_EPOCHS 3
#define CLI_INIT_SHARE 1.0
#define CLI_INIT_SAMPLE 1e-4
/* -cds from the SGD start: SGD draws its negatives from #(c)^0.75 (word2vec) */
#define CLI_SGD_CDS 0.75
/* -steps from the SGD start: a cap; -min-gain ends the run, after 12 and 13
   steps at 183k and 22k words (issue 53: steps from the measure, not 10) */
#define CLI_SGD_STEPS 30
/* -min-gain: a step that raises F by less than this percent ends the run
   (issue 53's measure of convergence: F no longer rising by 0.1% a step) */
#define CLI_MIN_GAIN 0.1

/* die() and its kin never return (they longjmp back to main); saying so
   lets compilers and static analyzers follow the paths that continue */
#if defined(__GNUC__) || defined(__clang__)
#define CLI_NORETURN __attribute__((noreturn))
#elif defined(_MSC_VER)
#define CLI_NORETURN __declspec(noreturn)
#else
#define CLI_NORETURN
#endif

/* ============================================================ the cli */

typedef void (*free_fn)(void *);

typedef struct cli {
    const char *cmd; /* for messages: "ro-sgns train: ..." */
    jmp_buf fail;
    void *owned[CLI_MAX_OWNED];
    free_fn owned_free[CLI_MAX_OWNED];
    int nowned;
    int quiet, tty;
    int line_open;   /* a progress line without its newline is on screen */
    size_t line_len; /* its length, to blank it when redrawn shorter */
    double last_draw, last_plain;
    int stage; /* write_vectors stages files for commit_outputs (train) */
    double later;     /* the estimated seconds of the run's stages after this one */
    double stage_est; /* and of this one (its end line says both) */
    double read_secs; /* counting's reading of the text (train: SGD's estimate) */
    struct staged *staged; /* those files, in the order written */
    struct sgd_saver *sgd_saver; /* the SGD start's -checkpoint (run_sgd), or NULL */
} cli;

static double now(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

static void end_line(cli *c)
{
    if (c->line_open) {
        fputc('\n', stderr);
        c->line_open = 0;
        c->line_len = 0;
    }
}

/* "ro-sgns CMD: KIND" and the message, a line on stderr */
static void say(cli *c, const char *kind, const char *fmt, va_list ap)
{
    end_line(c);
    fprintf(stderr, "ro-sgns%s%s: %s", c->cmd ? " " : "", c->cmd ? c->cmd : "", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
}

/* one line on stderr, then back to main, which frees what is registered */
CLI_NORETURN static void die(cli *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(c, "", fmt, ap);
    va_end(ap);
    longjmp(c->fail, 1);
}

static void note(cli *c, const char *fmt, ...)
{
    va_list ap;
    if (c->quiet) return;
    end_line(c);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* a warning: said even with -quiet, the run goes on */
static void warn(cli *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(c, "warning: ", fmt, ap);
    va_end(ap);
}

/* Progress: on a terminal one line redrawn in place (at most 5 times a
   second); on a pipe or file a line every 10 s and the final one. */
static void status(cli *c, int final, const char *fmt, ...)
{
    char line[400];
    va_list ap;
    double t = now();
    size_t len;
    if (c->quiet) return;
    if (!final && t - (c->tty ? c->last_draw : c->last_plain) < (c->tty ? 0.2 : 10.0)) return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    len = strlen(line);
    if (c->tty) {
        fprintf(stderr, "\r%s", line);
        while (c->line_len > len) { /* blank the rest of a longer old line */
            fputc(' ', stderr);
            --c->line_len;
        }
        c->line_len = len;
        c->line_open = 1;
        if (final) end_line(c);
    } else {
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
    c->last_draw = c->last_plain = t;
}

/* the start of a stage: the first non-final pipe line comes 10 s later */
static void stage_start(cli *c)
{
    c->last_plain = now();
    c->last_draw = 0;
}

static const char *fmt_secs(double s, char *buf, size_t size)
{
    if (!(s >= 0) || s > 1e8) snprintf(buf, size, "?");
    else if (s < 60) snprintf(buf, size, "%.0f s", s);
    else if (s < 3600) snprintf(buf, size, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, size, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
    return buf;
}

static const char *fmt_bytes(double b, char *buf, size_t size)
{
    if (b >= 1073741824.0) snprintf(buf, size, "%.2f GB", b / 1073741824.0);
    else snprintf(buf, size, "%.1f MB", b / 1048576.0);
    return buf;
}

/* an estimate's seconds: fmt_secs, with two digits below 10 s */
static const char *fmt_est(double s, char *buf, size_t size)
{
    if (s >= 0 && s < 10) {
        snprintf(buf, size, "%.2g s", s);
        return buf;
    }
    return fmt_secs(s, buf, size);
}

/* The peak resident memory so far, as ", peak RSS 12.3 MB" (Linux:
   /proc/self/status), or "" where unknown. */
static const char *rss_note(char *buf, size_t size)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1;
    buf[0] = '\0';
    if (!f) return buf;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kb = atof(line + 6);
    fclose(f);
    if (kb > 0) {
        char b[32];
        snprintf(buf, size, ", peak RSS %s", fmt_bytes(kb * 1024, b, sizeof b));
    }
    return buf;
}

static void *own(cli *c, void *p, free_fn fn)
{
    if (!p) die(c, "out of memory");
    if (c->nowned == CLI_MAX_OWNED) {
        fn(p);
        die(c, "too many open objects");
    }
    c->owned[c->nowned] = p;
    c->owned_free[c->nowned++] = fn;
    return p;
}

/* free one registered object now */
static void release(cli *c, void *p)
{
    int i;
    if (!p) return;
    for (i = c->nowned - 1; i >= 0; --i)
        if (c->owned[i] == p) {
            free_fn fn = c->owned_free[i];
            memmove(c->owned + i, c->owned + i + 1, (size_t)(c->nowned - i - 1) * sizeof(void *));
            memmove(c->owned_free + i, c->owned_free + i + 1,
                    (size_t)(c->nowned - i - 1) * sizeof(free_fn));
            --c->nowned;
            fn(p);
            return;
        }
}

static void release_all(cli *c)
{
    while (c->nowned > 0) {
        --c->nowned;
        c->owned_free[c->nowned](c->owned[c->nowned]);
    }
}

static void free_mem(void *p) { free(p); }
static void free_counts(void *p) { ro_sgns_counts_free((ro_sgns_counts *)p); }
static void free_factors(void *p) { ro_sgns_factors_free((ro_sgns_factors *)p); }
static void free_vectors(void *p) { ro_sgns_vectors_free((ro_sgns_vectors *)p); }
static void free_problem(void *p) { ro_sgns_problem_free((ro_sgns_problem *)p); }
static void free_csr(void *p) { ro_sgns_csr_free((ro_sgns_csr *)p); }
static void free_pairs(void *p) { ro_sgns_pairs_free((ro_sgns_pairs *)p); }
static void free_analogies(void *p) { ro_sgns_analogies_free((ro_sgns_analogies *)p); }
static void free_analogy_result(void *p)
{
    ro_sgns_analogy_result_free((ro_sgns_analogy_result *)p);
}
static void close_file(void *p) { fclose((FILE *)p); }
static void close_dir(void *p) { closedir((DIR *)p); }

/* n x size bytes, registered; the product checked before it is formed */
static void *alloc_array(cli *c, size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size) die(c, "out of memory (%lu x %lu bytes)", (unsigned long)n, (unsigned long)size);
    return own(c, malloc(n && size ? n * size : 1), free_mem);
}

/* realloc a registered block to n x size bytes */
static void *regrow(cli *c, void *p, size_t n, size_t size)
{
    int i;
    void *q;
    if (size && n > (size_t)-1 / size) die(c, "out of memory");
    for (i = c->nowned - 1; i >= 0 && c->owned[i] != p; --i) {
    }
    q = realloc(p, n && size ? n * size : 1);
    if (!q) die(c, "out of memory");
    if (i >= 0) c->owned[i] = q;
    return q;
}

static char *dup_str(cli *c, const char *s)
{
    char *d = (char *)alloc_array(c, strlen(s) + 1, 1);
    memcpy(d, s, strlen(s) + 1);
    return d;
}

static const char *display(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard input" : path;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* "PATH: message", without printing the path twice when the library's
   message already names it */
CLI_NORETURN static void die_lib(cli *c, const char *path, const ro_sgns_error *err)
{
    if (path && !strstr(err->message, path)) die(c, "%s: %s", path, err->message);
    die(c, "%s", err->message);
}

/* ============================================================ flags */

enum { T_GROUP, T_STR, T_INT, T_NUM, T_BYTES, T_01, T_SWITCH, T_LIST };

/* where a train flag applies (0: always) */
enum {
    W_RO = 1,        /* -method ro */
    W_SVD = 2,       /* -method svd */
    W_SGD = 4,       /* SGD runs: -method sgd or -init sgd */
    W_COUNT = 8,     /* the vocabulary comes from -train TEXT (no -counts) */
    W_PAIRS = 16,    /* pairs are counted and used or saved */
    W_SVDSTART = 32, /* the SVD-SPPMI start runs */
    W_SGDINIT = 64,  /* -init sgd */
    W_SGDRUN = 128   /* -method sgd */
};

typedef struct opts {
    const char *train, *counts, *add, *save_counts, *output, *output_ctx, *format, *method, *embed;
    const char *vectors, *contexts, *analogy, *analogy_method;
    const char *init, *init_ctx, *resume, *checkpoint, *curve, *direction, *svd;
    const char *eval[CLI_MAX_LIST];
    int neval;
    int binary; /* -1: by extension */
    long long size, threads, seed, window, min_count, max_vocab, dynamic_window, iter, steps,
        oversample, block, power_iters, k, restrict_vocab, head, fold_iter, fold_start,
        virtual_workers, cg_iter;
    int cross_lines, safeguard, fuse, allow_no_step, keep_best, quiet, fold_case, cbow, hs, help,
        normalize;
    int force, grad_norm;
    double max_step, max_seconds;
    unsigned long long memory, keep_direction;
    int allow_binary, allow_missing;
    const char *pairs, *bands;
    double negative, eig, cds, sample, alpha, eta, eta_max, init_coverage, init_share, init_sample, min_gain;
    double fold_prior;
} opts;

typedef struct flag_spec {
    const char *name; /* without the dash; a T_GROUP row's title */
    int type;
    size_t off;       /* the field of opts */
    unsigned where;   /* train: W_* bits where it applies, 0 = always */
    double lo, hi;    /* T_INT, T_NUM */
    const char *arg;  /* its value in the help, e.g. "D" */
    const char *help; /* NULL: not listed; {D} = the default, {X} see help_token */
    const char *alias; /* a second name (hyperwords' -neg for -negative) */
    const char *hint;  /* said when it does not apply */
} flag_spec;

#define F(name, type, field, where, lo, hi, arg, help)                                         \
    { name, type, offsetof(opts, field), where, lo, hi, arg, help, NULL, NULL }
#define G(title) { title, T_GROUP, 0, 0, 0, 0, NULL, NULL, NULL, NULL }
#define END { NULL, T_GROUP, 0, 0, 0, 0, NULL, NULL, NULL, NULL }

/* defaults of the flags that have a library config behind them */
static void opts_default(opts *o)
{
    ro_sgns_count_config cc = ro_sgns_count_config_default();
    ro_sgns_sgd_config sc = ro_sgns_sgd_config_default();
    ro_sgns_tsvd_config tc = ro_sgns_tsvd_config_default();
    ro_sgns_ro_config rc = ro_sgns_ro_config_default();
    memset(o, 0, sizeof *o);
    o->method = "ro";
    o->embed = NULL; /* by method: w+c for ro and svd, w for sgd */
    o->init = NULL; /* sgd with -train, svd from -counts alone (cmd_train) */
    o->direction = rc.direction == RO_SGNS_DIRECTION_PLAIN ? "plain" : "scaled";
    o->svd = tc.method == RO_SGNS_TSVD_SUBSPACE ? "subspace" : "krylov";
    o->analogy_method = "add";
    o->binary = -1;
    o->size = sc.size;
    o->negative = sc.negative;
    o->seed = (long long)cc.seed;
    o->window = cc.window;
    o->min_count = (long long)cc.min_count;
    o->max_vocab = (long long)cc.max_vocab;
    o->dynamic_window = cc.dynamic_window;
    o->sample = cc.sample;
    o->cross_lines = cc.cross_lines;
    o->memory = cc.memory_budget;
    o->iter = -1;  /* SGD's epochs: sc.epochs for -method sgd, CLI_INIT_EPOCHS for -init sgd */
    o->steps = -1; /* RO's cap: CLI_SGD_STEPS from -init sgd, else rc.iterations */
    o->alpha = sc.alpha;
    o->virtual_workers = -1; /* CLI_INIT_WORKERS for -init sgd, sc.workers (Hogwild) for -method sgd */
    o->init_share = CLI_INIT_SHARE;
    o->init_sample = CLI_INIT_SAMPLE;
    o->min_gain = CLI_MIN_GAIN;
    o->eta = 0; /* the direction's: rc.step, or 5e-5 for plain */
    o->eta_max = 0; /* rc.step_max: 0 = -eta */
    o->safeguard = rc.safeguard;
    o->keep_direction = rc.keep_direction_bytes;
    o->head = -1; /* the words seen CLI_HEAD_COUNT times or more (head_size) */
    o->fold_iter = ro_sgns_fold_config_default().iterations;
    o->fold_start = 1;
    o->fold_prior = ro_sgns_fold_config_default().prior;
    o->cg_iter = rc.cg_iterations;
    o->fuse = rc.fuse;
    o->oversample = (long long)tc.oversample;
    o->block = (long long)tc.block;
    o->power_iters = tc.power_iters;
    o->eig = 0; /* docs/ABLATION.md; the paper's is 0.5 */
    o->cds = 1.0;
    o->init_coverage = 0.5;
    o->k = 10;
    o->max_step = 600;
    o->max_seconds = 0;
}

/* {NAME} in a help line: a default that is not the flag's own field */
static void help_token(const char *name, size_t len, char *out, size_t size)
{
    ro_sgns_ro_config rc = ro_sgns_ro_config_default();
    ro_sgns_sgd_config sc = ro_sgns_sgd_config_default();
    if (len == 2 && memcmp(name, "RO", 2) == 0) snprintf(out, size, "%d", rc.iterations);
    else if (len == 3 && memcmp(name, "SGD", 3) == 0) snprintf(out, size, "%d", sc.epochs);
    else if (len == 3 && memcmp(name, "ETA", 3) == 0) snprintf(out, size, "%g", rc.step);
    else if (len == 3 && memcmp(name, "MAX", 3) == 0) snprintf(out, size, "%g", CLI_MAX_ABS);
    else if (len == 3 && memcmp(name, "NEG", 3) == 0) snprintf(out, size, "%g", CLI_MAX_NEGATIVE);
    else if (len == 2 && memcmp(name, "IW", 2) == 0) snprintf(out, size, "%d", CLI_INIT_WORKERS);
    else if (len == 2 && memcmp(name, "IE", 2) == 0) snprintf(out, size, "%d", CLI_INIT_EPOCHS);
    else if (len == 6 && memcmp(name, "SGDCDS", 6) == 0) snprintf(out, size, "%g", CLI_SGD_CDS);
    else if (len == 8 && memcmp(name, "SGDSTEPS", 8) == 0) snprintf(out, size, "%d", CLI_SGD_STEPS);
    else snprintf(out, size, "?");
}

static void flag_default(const flag_spec *s, const opts *o, char *out, size_t size)
{
    const char *p = (const char *)o + s->off;
    switch (s->type) {
    case T_STR: {
        const char *v = *(const char *const *)(const void *)p;
        snprintf(out, size, "%s", v ? v : "none");
        break;
    }
    case T_INT: snprintf(out, size, "%lld", *(const long long *)(const void *)p); break;
    case T_NUM: snprintf(out, size, "%g", *(const double *)(const void *)p); break;
    case T_01: snprintf(out, size, "%d", *(const int *)(const void *)p); break;
    case T_BYTES: {
        unsigned long long v = *(const unsigned long long *)(const void *)p;
        if (v) snprintf(out, size, "%llu", v);
        else snprintf(out, size, "none");
        break;
    }
    default: snprintf(out, size, "?");
    }
}

/* text with {D} (the flag's default) and {NAME} tokens expanded; a newline
   continues at the help column when indent is set */
static void put_expanded(FILE *f, const char *h, const flag_spec *s, const opts *def, int indent)
{
    char tok[64];
    for (; *h; ++h) {
        const char *e = *h == '{' ? strchr(h, '}') : NULL;
        if (*h == '\n' && indent) {
            fputs("\n                        ", f);
        } else if (e) {
            if (s && e == h + 2 && h[1] == 'D') flag_default(s, def, tok, sizeof tok);
            else help_token(h + 1, (size_t)(e - h - 1), tok, sizeof tok);
            fputs(tok, f);
            h = e;
        } else {
            fputc(*h, f);
        }
    }
}

/* one flag's help: "  -name ARG          text" */
static void print_flag(FILE *f, const flag_spec *s, const opts *def)
{
    char head[64];
    size_t col;
    snprintf(head, sizeof head, "  -%s%s%s%s%s", s->name, s->arg ? " " : "", s->arg ? s->arg : "",
             s->alias ? ", -" : "", s->alias ? s->alias : "");
    fputs(head, f);
    col = strlen(head);
    if (col >= 24) {
        fputc('\n', f);
        col = 0;
    }
    for (; col < 24; ++col) fputc(' ', f);
    put_expanded(f, s->help, s, def, 1);
    fputc('\n', f);
}

typedef struct cmd_desc {
    const char *name;
    const char *usage; /* lines */
    const char *about;
    const flag_spec *flags;
    const char *files;
    int words; /* positional words may start with '-' (neighbors) */
} cmd_desc;

static void print_cmd_help(const cmd_desc *cd, FILE *f)
{
    const flag_spec *s;
    opts def;
    opts_default(&def);
    fprintf(f, "%s\n", cd->usage);
    put_expanded(f, cd->about, NULL, &def, 0);
    fputc('\n', f);
    for (s = cd->flags; s->name; ++s) {
        if (s->type == T_GROUP) fprintf(f, "\n%s\n", s->name);
        else if (s->help) print_flag(f, s, &def);
    }
    fputc('\n', f);
    put_expanded(f, cd->files, NULL, &def, 0);
}

/* flags of other programs, and our own old names: said, never guessed */
#define CLI_NO_SUBWORDS                                                                         \
    "not supported: subword n-grams (fastText -minn, -maxn, -bucket); ro-sgns learns one "     \
    "vector a word, as word2vec (fastText's -maxn 0)"
static const char *const REFUSED[][2] = {
    {"classes", "not supported: word classes by k-means (word2vec -classes); cluster the vectors with another tool"},
    {"read-vocab", "not supported: a counts file holds the vocabulary: -counts COUNTS"},
    {"save-vocab", "not supported: -save-counts FILE keeps the vocabulary; 'ro-sgns vocab FILE' prints it as -save-vocab did"},
    {"debug", "not supported: progress is on by default; -quiet turns it off"},
    {"alpha-sgd", "renamed: the SGD learning rate is -alpha, as in word2vec"},
    {"epochs", "renamed: SGD epochs are -iter, as in word2vec"},
    {"init-iter", "renamed: the SGD start's epochs are -iter (word2vec's epochs over the text); RO's step cap is -steps"},
    {"workers", "renamed: virtual SGD workers are -virtual-workers; threads are -threads (gensim's workers)"},
    {"input", "fastText's -input is -train here"},
    {"dim", "fastText's -dim is -size here"},
    {"epoch", "fastText's -epoch is -iter here"},
    {"lr", "fastText's -lr is -alpha here"},
    {"ws", "fastText's -ws is -window here"},
    {"minCount", "fastText's -minCount is -min-count here"},
    {"thread", "fastText's -thread is -threads here"},
    {"t", "fastText's -t is -sample here"},
    {"minn", CLI_NO_SUBWORDS},
    {"maxn", CLI_NO_SUBWORDS},
    {"bucket", CLI_NO_SUBWORDS},
    {"loss", "not supported: ro-sgns trains negative sampling (fastText's -loss ns; -negative K); -loss hs and softmax are not here"},
    {"wordNgrams", "not supported: word n-grams are fastText's supervised classifier's (-wordNgrams); ro-sgns trains unsupervised word vectors"},
    {NULL, NULL}};

/* the flag of tab (or alias) nearest to name by edit distance (insert,
   delete, replace, swap two neighbours: 1 each), when it is near enough
   to be a typo: at most 2, and less than half the name; NULL otherwise */
static const char *nearest_flag(const flag_spec *tab, const char *name)
{
    const char *best = NULL;
    size_t bestd = 3, n = strlen(name);
    if (n > 40) return NULL;
    for (; tab->name; ++tab) {
        const char *cand[2];
        int k;
        cand[0] = tab->name;
        cand[1] = tab->alias;
        if (tab->type == T_GROUP) continue;
        for (k = 0; k < 2 && cand[k]; ++k) {
            size_t m = strlen(cand[k]), i, j, row[3][42];
            if (m > 40) continue;
            /* Damerau-Levenshtein (optimal string alignment) on three rows */
            for (j = 0; j <= m; ++j) row[1][j] = j;
            for (i = 1; i <= n; ++i) {
                size_t *cur = row[(i + 1) % 3], *prev = row[i % 3], *prev2 = row[(i + 2) % 3];
                cur[0] = i;
                for (j = 1; j <= m; ++j) {
                    size_t d = prev[j - 1] + (name[i - 1] != cand[k][j - 1]);
                    if (prev[j] + 1 < d) d = prev[j] + 1;
                    if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
                    if (i > 1 && j > 1 && name[i - 1] == cand[k][j - 2] && name[i - 2] == cand[k][j - 1] &&
                        prev2[j - 2] + 1 < d)
                        d = prev2[j - 2] + 1;
                    cur[j] = d;
                }
            }
            if (row[(n + 1) % 3][m] < bestd && 2 * row[(n + 1) % 3][m] < n) {
                bestd = row[(n + 1) % 3][m];
                best = cand[k];
            }
        }
    }
    return best;
}

static const flag_spec *find_flag(const flag_spec *tab, const char *name)
{
    for (; tab->name; ++tab)
        if (tab->type != T_GROUP &&
            (strcmp(tab->name, name) == 0 || (tab->alias && strcmp(tab->alias, name) == 0)))
            return tab;
    return NULL;
}

/* a whole number: digits only (no sign, fraction, exponent or junk) */
static int parse_whole(const char *s, unsigned long long *v)
{
    unsigned long long u = 0;
    if (!*s) return 0;
    for (; *s; ++s) {
        unsigned d;
        if (*s < '0' || *s > '9') return 0;
        d = (unsigned)(*s - '0');
        if (u > (~0ull - d) / 10) return 0;
        u = u * 10 + d;
    }
    *v = u;
    return 1;
}

/* a decimal number: [+-] digits [. digits] [e [+-] digits]; no hex, inf,
   nan or trailing junk (strtod would take them) */
static int parse_decimal(const char *s, double *v)
{
    const char *p = s;
    char *end;
    int digits = 0;
    if (*p == '+' || *p == '-') ++p;
    while (*p >= '0' && *p <= '9') ++p, ++digits;
    if (*p == '.') {
        ++p;
        while (*p >= '0' && *p <= '9') ++p, ++digits;
    }
    if (!digits) return 0;
    if (*p == 'e' || *p == 'E') {
        ++p;
        if (*p == '+' || *p == '-') ++p;
        if (*p < '0' || *p > '9') return 0;
        while (*p >= '0' && *p <= '9') ++p;
    }
    if (*p) return 0;
    errno = 0;
    *v = strtod(s, &end);
    return *end == '\0' && isfinite(*v);
}

static void set_value(cli *c, const flag_spec *s, const char *v, opts *o)
{
    char *p = (char *)o + s->off;
    switch (s->type) {
    case T_STR: *(const char **)(void *)p = v; break;
    case T_LIST:
        if (o->neval == CLI_MAX_LIST) die(c, "-%s given more than %d times", s->name, CLI_MAX_LIST);
        o->eval[o->neval++] = v;
        break;
    case T_01:
        if (strcmp(v, "0") && strcmp(v, "1")) die(c, "-%s %s: expected 0 or 1", s->name, v);
        *(int *)(void *)p = v[0] == '1';
        break;
    case T_INT: {
        unsigned long long u;
        if (!parse_whole(v, &u) || (double)u < s->lo || (double)u > s->hi)
            die(c, "-%s %s: expected a whole number in [%.0f, %.0f]", s->name, v, s->lo, s->hi);
        *(long long *)(void *)p = (long long)u;
        break;
    }
    case T_NUM: {
        double x;
        if (!parse_decimal(v, &x) || x < s->lo || x > s->hi)
            die(c, "-%s %s: expected a number in [%g, %g]", s->name, v, s->lo, s->hi);
        *(double *)(void *)p = x;
        break;
    }
    case T_BYTES: { /* 2G, 500M, 1.5G, 4096K; at least 1M, at most 1 exabyte */
        char num[64];
        size_t len = strlen(v);
        double x, mul = 1;
        char last = len ? v[len - 1] : 0;
        if (last == 'K' || last == 'k') mul = 1024.0;
        else if (last == 'M' || last == 'm') mul = 1048576.0;
        else if (last == 'G' || last == 'g') mul = 1073741824.0;
        else if (last == 'T' || last == 't') mul = 1099511627776.0;
        if (mul > 1) --len;
        if (len == 0 || len >= sizeof num) die(c, "-%s %s: expected a size like 500M or 2G", s->name, v);
        memcpy(num, v, len);
        num[len] = '\0';
        if (!parse_decimal(num, &x) || !(x > 0) || x > 1e18 / mul)
            die(c, "-%s %s: expected a size like 500M or 2G (at most 1e18 bytes)", s->name, v);
        x *= mul;
        if (x < 1048576.0) die(c, "-%s %s: at least 1M", s->name, v);
        *(unsigned long long *)(void *)p = (unsigned long long)x;
        break;
    }
    default: break;
    }
}

/* Parse argv into o; given[i] = 1 for each flag of the table that was set.
   Positional arguments go to pos (NULL: none allowed). */
static int parse_flags(cli *c, const cmd_desc *cd, int argc, char **argv, opts *o,
                       unsigned char *given, char **pos)
{
    int i, npos = 0;
    for (i = 0; i < argc; ++i) {
        const char *a = argv[i];
        const flag_spec *s;
        size_t idx;
        if (a[0] != '-' || a[1] == '\0' || (cd->words && a[0] == '-' && !find_flag(cd->flags, a + 1))) {
            if (!pos) die(c, "unexpected argument '%s' (flags start with '-'; see ro-sgns %s -help)", a, cd->name);
            pos[npos++] = argv[i];
            continue;
        }
        s = find_flag(cd->flags, a + 1);
        if (!s) {
            const char *near;
            int r;
            for (r = 0; REFUSED[r][0]; ++r)
                if (strcmp(REFUSED[r][0], a + 1) == 0) die(c, "%s: %s", a, REFUSED[r][1]);
            near = nearest_flag(cd->flags, a + 1);
            if (near) die(c, "unknown flag %s: did you mean -%s? (ro-sgns %s -help lists the flags)", a, near, cd->name);
            die(c, "unknown flag %s (ro-sgns %s -help lists the flags)", a, cd->name);
        }
        idx = (size_t)(s - cd->flags);
        if (given[idx] && s->type != T_LIST) die(c, "-%s given twice", s->name);
        given[idx] = 1;
        if (s->type == T_SWITCH) {
            *(int *)(void *)((char *)o + s->off) = 1;
            continue;
        }
        if (i + 1 >= argc) die(c, "-%s needs a value (%s)", s->name, s->arg ? s->arg : "a value");
        set_value(c, s, argv[++i], o);
    }
    return npos;
}

static int was_given(const cmd_desc *cd, const unsigned char *given, const char *name)
{
    const flag_spec *s = find_flag(cd->flags, name);
    return s && given[s - cd->flags];
}

/* ============================================================ files */

static int is_stdio(const char *path) { return strcmp(path, "-") == 0; }

static FILE *open_read(cli *c, const char *flag, const char *path)
{
    FILE *f;
    struct stat st;
    if (is_stdio(path)) return stdin;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        die(c, "%s%s%s'%s' is a directory, not a file", flag ? "-" : "", flag ? flag : "",
            flag ? " " : "", path);
    f = fopen(path, "rb");
    if (!f)
        die(c, "%s%s%scannot open '%s': %s", flag ? "-" : "", flag ? flag : "", flag ? ": " : "",
            path, strerror(errno));
    return (FILE *)own(c, f, close_file);
}

static void close_read(cli *c, FILE *f)
{
    if (f && f != stdin) release(c, f);
}

/* Can path be read twice (a regular file)? Standard input, a pipe
   (-train <(cat file)), a FIFO or a device can be read once: a run that
   reads the text twice holds it in memory (slurp) instead. A path that
   is not there counts as a file (opening it says why it fails). */
static int reads_twice(const char *path)
{
    struct stat st;
    if (is_stdio(path)) return 0;
    return stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode);
}

/* Can a file be written at path? Checked before any long work, so a bad
   -output, -curve or -checkpoint costs a second, not a training run.
   Nothing that exists is changed: an existing file is opened for
   appending (no byte written), a new one created and removed, and the
   folder must take the temporary file a save writes beside it. */
/* the folder of path (".", "/" or its part before the last '/') */
static void folder_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, size, ".");
    else if (slash == path) snprintf(dir, size, "/");
    else snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

/* Is path (existing) the file this process writes as its standard output
   (e.g. /dev/stdout, or a link to /proc/self/fd/1, redirected to a file)?
   Then a save writes into it in place, as with "-". */
static int is_own_stdout(const struct stat *st)
{
    struct stat so;
    return fstat(STDOUT_FILENO, &so) == 0 && so.st_dev == st->st_dev && so.st_ino == st->st_ino;
}

/* FIFOs checked for a reader before the work stay open until their output
   is written (closing the probe would end the reader's input). */
#define CLI_MAX_HELD 8
static struct {
    char path[4096];
    int fd;
} held[CLI_MAX_HELD];
static int nheld;

/* A FILE to write path with in place: the descriptor kept for it by
   check_output, else path opened without waiting for a FIFO's reader
   (no reader: NULL, errno ENXIO). */
static FILE *open_in_place(const char *path, const char *mode)
{
    int i, fd, fl;
    FILE *f;
    for (i = 0; i < nheld; ++i)
        if (strcmp(held[i].path, path) == 0) {
            f = fdopen(held[i].fd, mode);
            if (f) held[i] = held[--nheld];
            return f;
        }
    fd = open(path, O_WRONLY | O_NONBLOCK | (mode[0] == 'a' ? O_APPEND : O_TRUNC));
    if (fd < 0) return NULL;
    fl = fcntl(fd, F_GETFL);
    if (fl == -1 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1 || !(f = fdopen(fd, mode))) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    return f;
}

/* What a save adds to a name for its temporary file: the library's
   ".<16 hex digits>.tmp" (CLI_TMP_EXTRA); train's two outputs are first
   staged as "NAME.<pid>.part" (stage_file), saved so in turn. */
#define CLI_TMP_EXTRA 21
static size_t staged_extra(void)
{
    char pid[32];
    return (size_t)snprintf(pid, sizeof pid, ".%ld.part", (long)getpid()) + CLI_TMP_EXTRA;
}

/* The longest temporary name a save of path uses (its name and extra
   bytes, in dir) must fit dir's file system: said before the work, not
   "File name too long" after it. */
static void check_name_room(cli *c, const char *flag, const char *path, const char *dir,
                            size_t extra)
{
    size_t len = strlen(base_name(path));
    long max;
    errno = 0;
    max = pathconf(dir, _PC_NAME_MAX);
    if (max < 0 && errno == 0) return; /* no limit */
    if (max < 0) max = 255;            /* unknown: the usual one */
    if (len + extra > (size_t)max)
        die(c, "-%s: the name '%s' is too long: a save writes it through a temporary file whose "
               "name is %lu bytes longer, %lu bytes, and the folder's file system allows %ld; "
               "give a name of at most %ld bytes",
            flag, base_name(path), (unsigned long)extra, (unsigned long)(len + extra), max,
            max - (long)extra);
}

/* extra: what a save adds to the name for its temporary file (0: written
   in place, as -curve) */
static void check_output(cli *c, const char *flag, const char *path, size_t extra)
{
    struct stat st;
    FILE *f;
    char dir[4096];
    const char *p = path;
    char *real = NULL;
    if (is_stdio(path)) return;
    if (!*path) die(c, "-%s: empty file name", flag);
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        real = realpath(path, NULL);
        if (!real) { /* a dangling link: the write creates its target */
            char target[4096];
            ssize_t n = readlink(path, target, sizeof target - 1);
            if (n <= 0) die(c, "-%s: cannot write '%s': %s", flag, path, strerror(errno));
            target[n] = '\0';
            if (target[0] == '/') {
                folder_of(target, dir, sizeof dir);
            } else {
                char link_dir[4096], joined[8200];
                folder_of(path, link_dir, sizeof link_dir);
                snprintf(joined, sizeof joined, "%s/%s", link_dir, target);
                folder_of(joined, dir, sizeof dir);
            }
            if (access(dir, W_OK | X_OK) != 0)
                die(c, "-%s: cannot create '%s', the target of '%s': %s", flag, target, path,
                    strerror(errno));
            check_name_room(c, flag, target, dir, extra);
            return;
        }
        own(c, real, free_mem);
        p = real;
    }
    if (stat(p, &st) == 0) {
        if (S_ISDIR(st.st_mode)) die(c, "-%s: '%s' is a directory", flag, path);
        if (S_ISSOCK(st.st_mode)) die(c, "-%s: '%s' is a socket; give a file", flag, path);
        if (S_ISFIFO(st.st_mode)) {
            int fd, fl;
            /* a checkpoint is read back by -resume, and a save must not wait */
            if (strcmp(flag, "checkpoint") == 0)
                die(c, "-checkpoint: '%s' is a FIFO; a checkpoint must be a file that -resume can "
                       "read back",
                    path);
            /* opening a FIFO for writing waits for a reader: ask without waiting,
               and keep what opened for the write at the end */
            fd = open(p, O_WRONLY | O_NONBLOCK);
            if (fd < 0 && errno == ENXIO)
                die(c, "-%s: '%s' is a FIFO with no reader (writing would wait for one): start "
                       "the reader first",
                    flag, path);
            if (fd < 0) die(c, "-%s: cannot write '%s': %s", flag, path, strerror(errno));
            fl = fcntl(fd, F_GETFL); /* the writes wait for the reader as usual */
            if (fl == -1 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1) {
                int e = errno;
                close(fd);
                die(c, "-%s: cannot write '%s': %s", flag, path, strerror(e));
            }
            if (nheld == CLI_MAX_HELD || strlen(path) >= sizeof held[0].path) {
                close(fd);
                die(c, "-%s: too many FIFOs", flag);
            }
            snprintf(held[nheld].path, sizeof held[nheld].path, "%s", path);
            held[nheld++].fd = fd;
            if (real) release(c, real);
            return;
        }
        f = fopen(p, "ab"); /* appends nothing: the file is unchanged */
        if (!f) die(c, "-%s: cannot write '%s': %s", flag, path, strerror(errno));
        fclose(f);
        if (!S_ISREG(st.st_mode) || is_own_stdout(&st)) {
            if (real) release(c, real);
            return; /* written in place: no temporary file */
        }
    } else {
        if (errno != ENOENT) die(c, "-%s: cannot write '%s': %s", flag, path, strerror(errno));
        f = fopen(p, "wb");
        if (!f) die(c, "-%s: cannot write '%s': %s", flag, path, strerror(errno));
        fclose(f);
        remove(p);
    }
    folder_of(p, dir, sizeof dir);
    if (access(dir, W_OK | X_OK) != 0)
        die(c, "-%s: cannot write in the folder of '%s' (%s): %s", flag, path, dir, strerror(errno));
    check_name_room(c, flag, p, dir, extra);
    if (real) release(c, real);
}

/* What a path names, to tell two paths apart: an existing file by its
   device and inode (links followed; "-" is standard input or output), a
   file not there yet by its folder's real path and its name (a dangling
   link by the file it would create). */
typedef struct file_id {
    int exists, regular;
    dev_t dev;
    ino_t ino;
    char path[8200];
} file_id;

static void file_id_of(const char *path, int output, file_id *id)
{
    struct stat st;
    char cur[8200], link[4096], dir[4096], *real;
    int hops, ok;
    memset(id, 0, sizeof *id);
    ok = is_stdio(path) ? fstat(output ? STDOUT_FILENO : STDIN_FILENO, &st) == 0
                        : stat(path, &st) == 0;
    if (ok) {
        id->exists = 1;
        id->regular = S_ISREG(st.st_mode);
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return;
    }
    snprintf(cur, sizeof cur, "%s", path);
    for (hops = 0; hops < 40 && lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); ++hops) {
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n <= 0) break;
        link[n] = '\0';
        if (link[0] == '/') {
            snprintf(cur, sizeof cur, "%s", link);
        } else {
            folder_of(cur, dir, sizeof dir);
            snprintf(id->path, sizeof id->path, "%s/%s", dir, link);
            memcpy(cur, id->path, sizeof cur);
        }
    }
    folder_of(cur, dir, sizeof dir);
    real = realpath(dir, NULL);
    snprintf(id->path, sizeof id->path, "%.4095s/%.4095s", real ? real : dir, base_name(cur));
    free(real);
}

/* One file of a command: its flag, its path (NULL: not given), whether the
   command writes it, and a flag whose file it may be (-checkpoint may be
   the checkpoint -resume reads). */
typedef struct cmd_file {
    const char *flag, *path;
    int output;
    const char *may_be;
} cmd_file;

/* Refuse, before any work, an output that is one of the inputs or another
   output: the save would replace what is read, or one output the other.
   Devices and FIFOs are not compared (two outputs may go to /dev/null). */
static void check_distinct(cli *c, const cmd_file *fl, int n)
{
    file_id *id = (file_id *)alloc_array(c, (size_t)n, sizeof *id);
    int i, j;
    for (i = 0; i < n; ++i)
        if (fl[i].path) file_id_of(fl[i].path, fl[i].output, &id[i]);
    for (i = 0; i < n; ++i)
        for (j = i + 1; j < n; ++j) {
            const cmd_file *a = &fl[i], *b = &fl[j];
            int same;
            if (!a->path || !b->path || (!a->output && !b->output)) continue;
            if ((a->may_be && strcmp(a->may_be, b->flag) == 0) ||
                (b->may_be && strcmp(b->may_be, a->flag) == 0))
                continue;
            if (id[i].exists != id[j].exists) continue;
            same = a->output && b->output && is_stdio(a->path) && is_stdio(b->path) ? 1
                   : id[i].exists ? id[i].regular && id[j].regular && id[i].dev == id[j].dev &&
                                      id[i].ino == id[j].ino
                                : strcmp(id[i].path, id[j].path) == 0;
            if (!same) continue;
            if (!a->output) { /* the output first */
                const cmd_file *t = a;
                a = b;
                b = t;
            }
            if (b->output)
                die(c, "-%s and -%s name the same file '%s': one would replace the other", a->flag,
                    b->flag, a->path);
            die(c, "-%s and -%s name the same file '%s': the output would replace the input", a->flag,
                b->flag, a->path);
        }
    release(c, id);
}

/* Where a save goes, by what the path is (never by its name): written in
   place, never through a temporary file and a rename (which would replace
   the path by a regular file), are "-", a character device, a FIFO (its
   descriptor from check_output: never a wait for a reader) and this
   process's own standard output named by a path (/dev/stdout redirected
   to a file); links are followed. A regular file anywhere (/dev/shm too)
   is left to the library's save: a temporary file renamed over it (a
   link stays a link). Returns 1 with *f open to write in place; 0 when
   the library saves to path; -1 when the file cannot be opened (errno
   says why). */
static int output_target(const char *path, FILE **f)
{
    struct stat st;
    *f = NULL;
    if (is_stdio(path)) {
        *f = stdout;
        return 1;
    }
    if (stat(path, &st) != 0 || S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && !is_own_stdout(&st)))
        return 0;
    *f = open_in_place(path, "wb");
    return *f ? 1 : -1;
}

static int write_file_fn(void *user, const void *data, size_t size)
{
    return fwrite(data, 1, size, (FILE *)user) != size;
}

/* close what output_target opened; non-zero when the data did not all go */
static int close_in_place(FILE *f)
{
    int bad = fflush(f) != 0 || ferror(f);
    if (f != stdout && fclose(f) != 0) bad = 1;
    return bad;
}

/* the whole of a file (or of standard input) in memory */
static char *slurp(cli *c, const char *flag, const char *path, size_t *size)
{
    FILE *f = open_read(c, flag, path);
    size_t cap = 1 << 16, n = 0;
    char *buf = (char *)malloc(cap);
    for (;;) {
        size_t got;
        if (!buf) {
            close_read(c, f);
            die(c, "%s: out of memory", display(path));
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n == cap) {
            char *nb = cap > ((size_t)-1) / 2 ? NULL : (char *)realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                continue;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        close_read(c, f);
        die(c, "cannot read '%s': %s", display(path), strerror(e));
    }
    close_read(c, f);
    *size = n;
    return (char *)own(c, buf, free_mem);
}

/* A read callback over a FILE that draws progress: percent and ETA when the
   size is known (a regular file), bytes and rate otherwise (a pipe). */
typedef struct reader {
    cli *c;
    FILE *f;
    const char *path, *label;
    double size, done, t0;
    int err; /* errno of a failed read */
    int eof;
    unsigned char head[12]; /* the first bytes read (a file's magic and version) */
    size_t nhead;
} reader;

static void reader_open(cli *c, reader *r, const char *flag, const char *path, const char *label)
{
    struct stat st;
    memset(r, 0, sizeof *r);
    r->c = c;
    r->path = path;
    r->label = label;
    r->f = open_read(c, flag, path);
    if (fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode)) r->size = (double)st.st_size;
    r->t0 = now();
    stage_start(c);
}

static size_t reader_read(void *user, void *buf, size_t size)
{
    reader *r = (reader *)user;
    size_t got = fread(buf, 1, size, r->f);
    double t = now(), rate;
    char eta[32];
    if (got == 0 && ferror(r->f)) {
        r->err = errno ? errno : EIO;
        return (size_t)-1;
    }
    if (got == 0 && r->eof) return 0;
    r->eof = got == 0;
    if (r->nhead < sizeof r->head) {
        size_t m = sizeof r->head - r->nhead < got ? sizeof r->head - r->nhead : got;
        memcpy(r->head + r->nhead, buf, m);
        r->nhead += m;
    }
    r->done += (double)got;
    rate = r->done / (t - r->t0 + 1e-9);
    if (r->size > 0) {
        double frac = r->done < r->size ? r->done / r->size : 1;
        char bar[31];
        int i, w = (int)(frac * 30);
        for (i = 0; i < 30; ++i) bar[i] = i < w ? '#' : '.';
        bar[30] = '\0';
        status(r->c, got == 0, "%s %s [%s] %5.1f%%  %.1f MB/s  ETA %s", r->label,
               base_name(display(r->path)), bar, 100 * frac, rate / 1e6,
               fmt_secs(rate > 0 ? (r->size - r->done) / rate : -1, eta, sizeof eta));
    } else {
        status(r->c, got == 0, "%s %s: %.1f MB  %.1f MB/s", r->label, display(r->path), r->done / 1e6,
               rate / 1e6);
    }
    return got;
}

/* A loader (counts, checkpoint) read up to its file's end and no further:
   anything after it is an error, never ignored. */
static void reader_at_end(cli *c, reader *r, const char *what)
{
    int ch = fgetc(r->f);
    if (ch == EOF && ferror(r->f)) die(c, "cannot read '%s': %s", display(r->path), strerror(errno));
    if (ch != EOF)
        die(c, "%s: trailing bytes after the %s at offset %llu: not one %s file", display(r->path),
            what, (unsigned long long)r->done, what);
}

/* a failed library call that read through a reader: the OS's reason first */
CLI_NORETURN static void die_read(cli *c, const reader *r, const ro_sgns_error *err)
{
    if (r->err) die(c, "cannot read '%s': %s", display(r->path), strerror(r->err));
    die_lib(c, display(r->path), err);
}

/* -------------------------------------------------- vectors files */

enum { SNIFF_UNKNOWN, SNIFF_W2V_TEXT, SNIFF_HEADERLESS, SNIFF_BINARY };

/* the blanks of the library's text formats (section 10) */
static int is_blank(unsigned char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Does the line at b (up to '\n' or len) read as a word and numbers? want =
   how many numbers (0: at least one). A line cut by the end of the sample
   counts when what is there fits. */
static int text_record(const unsigned char *b, size_t len, unsigned long long want)
{
    size_t i = 0;
    unsigned long long nums = 0;
    int cut = 0;
    while (i < len && is_blank(b[i])) ++i;
    if (i == len || b[i] == '\n') return 0;
    while (i < len && !is_blank(b[i]) && b[i] != '\n') ++i; /* the word */
    for (;;) {
        size_t s;
        char tok[64];
        double v;
        while (i < len && is_blank(b[i])) ++i;
        if (i == len) {
            cut = 1;
            break;
        }
        if (b[i] == '\n') break;
        s = i;
        while (i < len && !is_blank(b[i]) && b[i] != '\n') ++i;
        if (i == len) { /* a number cut by the sample's end: check its bytes only */
            cut = 1;
            while (s < i && strchr("0123456789+-.eE", b[s])) ++s;
            if (s < i) return 0;
            break;
        }
        if (i - s >= sizeof tok) { /* longer than a number needs: its bytes only */
            while (s < i && strchr("0123456789+-.eE", b[s])) ++s;
            if (s < i) return 0;
        } else {
            memcpy(tok, b + s, i - s);
            tok[i - s] = '\0';
            if (!parse_decimal(tok, &v)) return 0;
        }
        ++nums;
    }
    if (cut) return want == 0 || nums <= want;
    return nums >= 1 && (want == 0 || nums == want);
}

/* A run of decimal digits at b[*i] (before e) into *x: 0 when there is
   none or it overflows. */
static int header_count(const unsigned char *b, size_t e, size_t *i, unsigned long long *x)
{
    size_t s = *i;
    *x = 0;
    for (; *i < e && b[*i] >= '0' && b[*i] <= '9'; ++*i) {
        if (*x > (~0ull - 9) / 10) return 0;
        *x = *x * 10 + (unsigned long long)(b[*i] - '0');
    }
    return *i > s;
}

/* The first line (e bytes) as the library reads a word2vec header: blanks,
   V, blanks, d, blanks; 0 when it is not one. */
static int header_line(const unsigned char *b, size_t e, unsigned long long *V,
                       unsigned long long *d)
{
    size_t i = 0;
    while (i < e && is_blank(b[i])) ++i;
    if (!header_count(b, e, &i, V) || i == e || !is_blank(b[i])) return 0;
    while (i < e && is_blank(b[i])) ++i;
    if (!header_count(b, e, &i, d)) return 0;
    while (i < e && is_blank(b[i])) ++i;
    return i == e;
}

static int sniff_vectors(const unsigned char *b, size_t n)
{
    size_t e = 0, s;
    unsigned long long V = 0, d = 0;
    while (e < n && b[e] != '\n') ++e;
    if (!header_line(b, e, &V, &d)) V = d = 0;
    if (d > 0 && V > 0) { /* "V d": word2vec, text or binary by its first record */
        s = e < n ? e + 1 : n;
        if (s >= n) return SNIFF_UNKNOWN;
        return text_record(b + s, n - s, d) ? SNIFF_W2V_TEXT : SNIFF_BINARY;
    }
    return text_record(b, n, 0) ? SNIFF_HEADERLESS : SNIFF_UNKNOWN;
}

static int has_ext(const char *path, const char *ext)
{
    size_t a = strlen(path), b = strlen(ext);
    return a > b && strcmp(path + a - b, ext) == 0;
}

/* How a vectors file is read or written: -format, else -binary, else the
   name (.bin binary; .glove GloVe; anything else, "-" included, text).
   why says which, for messages. Text read with a header is word2vec text,
   without one GloVe (or gensim's write_header=False): that is sniffed. */
static ro_sgns_vectors_format vectors_format(cli *c, const opts *o, const char *path,
                                             const char **why)
{
    if (o->format) {
        *why = "-format";
        if (strcmp(o->format, "w2v") == 0) return RO_SGNS_W2V_TEXT;
        if (strcmp(o->format, "w2v-binary") == 0) return RO_SGNS_W2V_BINARY;
        if (strcmp(o->format, "glove") == 0) return RO_SGNS_GLOVE_TEXT;
        die(c, "-format %s: expected w2v, w2v-binary or glove", o->format);
    }
    if (o->binary >= 0) {
        *why = o->binary ? "-binary 1" : "-binary 0";
        return o->binary ? RO_SGNS_W2V_BINARY : RO_SGNS_W2V_TEXT;
    }
    *why = "name";
    if (has_ext(path, ".bin")) return RO_SGNS_W2V_BINARY;
    if (has_ext(path, ".glove")) return RO_SGNS_GLOVE_TEXT;
    return RO_SGNS_W2V_TEXT;
}

static const char *format_name(ro_sgns_vectors_format f)
{
    return f == RO_SGNS_W2V_BINARY ? "word2vec binary"
         : f == RO_SGNS_GLOVE_TEXT ? "GloVe text"
                                   : "word2vec text";
}

/* read a vectors file by the rule above; errors name the file */
static ro_sgns_vectors *load_vectors(cli *c, const opts *o, const char *flag, const char *path)
{
    ro_sgns_vectors_format fmt;
    const char *why, *ext;
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    const unsigned char *sample;
    unsigned char *prefix = NULL;
    size_t n = 0, size = 0;
    char *all = NULL;
    int kind;
    FILE *f = NULL;
    fmt = vectors_format(c, o, path, &why);
    if (!is_stdio(path)) {
        f = open_read(c, flag, path);
        prefix = (unsigned char *)alloc_array(c, 65536, 1);
        n = fread(prefix, 1, 65536, f);
        if (ferror(f)) die(c, "cannot read '%s': %s", path, strerror(errno));
        if (fseek(f, 0, SEEK_SET) != 0) { /* a FIFO: what was read is gone */
            close_read(c, f);
            f = NULL;
            release(c, prefix);
            prefix = NULL;
        }
    }
    if (!f) {
        all = slurp(c, flag, path, &size);
        n = size < 65536 ? size : 65536;
    }
    sample = prefix ? prefix : (const unsigned char *)all;
    kind = sniff_vectors(sample, n);
    ext = has_ext(path, ".bin") ? ".bin" : has_ext(path, ".txt") ? ".txt" : has_ext(path, ".vec") ? ".vec" : NULL;
    if (fmt == RO_SGNS_W2V_BINARY && (kind == SNIFF_W2V_TEXT || kind == SNIFF_HEADERLESS)) {
        if (strcmp(why, "name") == 0)
            die(c, "%s: named .bin but looks like text (%s); read it with -binary 0, or rename it",
                path, kind == SNIFF_W2V_TEXT ? "word2vec text" : "text without a header");
        die(c, "%s: %s says word2vec binary but the file looks like text; drop %s", display(path),
            why, why);
    }
    if (fmt != RO_SGNS_W2V_BINARY && kind == SNIFF_BINARY) {
        if (strcmp(why, "name") == 0)
            die(c, "%s: named %s but looks like word2vec binary; read it with -binary 1, or rename it .bin",
                display(path), ext ? ext : "without .bin");
        die(c, "%s: %s says text but the file looks like word2vec binary; use -binary 1", display(path), why);
    }
    if (fmt != RO_SGNS_W2V_BINARY && !o->format)
        fmt = kind == SNIFF_HEADERLESS ? RO_SGNS_GLOVE_TEXT : RO_SGNS_W2V_TEXT;
    if (prefix) release(c, prefix);
    if (all) {
        if (ro_sgns_vectors_load_memory(all, size, fmt, 0, &v, NULL, &err) != RO_SGNS_OK)
            die(c, "%s: %s (read as %s by its %s)", display(path), err.message, format_name(fmt), why);
        release(c, all);
    } else {
        if (ro_sgns_vectors_load_file(f, fmt, 0, &v, NULL, &err) != RO_SGNS_OK) {
            if (ferror(f)) die(c, "cannot read '%s': %s", path, strerror(errno));
            die(c, "%s: %s (read as %s by its %s)", path, err.message, format_name(fmt), why);
        }
        close_read(c, f);
    }
    return (ro_sgns_vectors *)own(c, v, free_vectors);
}

/* Values a vectors file may hold: finite, |x| <= CLI_MAX_ABS. */
static int is_zero(const ro_sgns_real *x, size_t d)
{
    size_t j;
    for (j = 0; j < d; ++j)
        if (x[j] != 0) return 0;
    return 1;
}

/* zero vectors have no direction: a cosine with one is scored 0, say so */
static void warn_zero_rows(cli *c, const ro_sgns_vectors *v, const char *path)
{
    size_t i, zeros = 0, first = 0;
    for (i = 0; i < v->n; ++i)
        if (is_zero(v->data + i * v->d, v->d) && zeros++ == 0) first = i;
    if (zeros)
        warn(c, "%s: %lu zero vector(s) (the first: '%s'): a cosine with one is scored 0",
             display(path), (unsigned long)zeros, v->words[first]);
}

static void check_values(cli *c, const char *what, const ro_sgns_real *M, size_t n, size_t d)
{
    size_t i;
    double top = 0;
    for (i = 0; i < n * d; ++i) {
        double x = fabs((double)M[i]);
        if (!(x <= 1e300))
            die(c, "-%s: NaN or Inf in the vectors (row %lu): the run diverged; nothing written", what,
                (unsigned long)(i / d));
        if (x > top) top = x;
    }
    if (top > CLI_MAX_ABS)
        die(c, "-%s: a vector value of %.3g, beyond the bound %g: the run diverged (a step too "
               "large? with -safeguard 0 nothing stops it); nothing written",
            what, top, CLI_MAX_ABS);
}

/* write n x d (words from the counts) to path by the format rule */
/* A file written under a temporary name that commit_outputs renames over
   its path; freed before that (a later failure), the temporary goes. */
typedef struct staged {
    char *tmp;
    int keep; /* the other output is renamed: tmp is the only new copy */
    const char *to, *flag;
    cli *c;
    struct staged *next;
} staged;

static void drop_staged(void *p)
{
    staged *s = (staged *)p, **q;
    for (q = &s->c->staged; *q; q = &(*q)->next)
        if (*q == s) {
            *q = s->next;
            break;
        }
    if (s->tmp && !s->keep) remove(s->tmp);
    free(s->tmp);
    free(s);
}

/* The file a save to path replaces: the end of its chain of symbolic
   links (a relative link read from the link's folder; a dangling one's
   target is the file to create), as the library's own save resolves it;
   path itself when it is no link. */
static const char *link_target(cli *c, const char *path)
{
    char *cur = NULL, link[4096];
    const char *at = path;
    int hops;
    for (hops = 0; hops < 40; ++hops) {
        ssize_t len = readlink(at, link, sizeof link);
        size_t dir = 0, i;
        char *next;
        if (len < 0 || (size_t)len >= sizeof link) break; /* no link (or too long): the end */
        if (link[0] != '/')
            for (i = 0; at[i]; ++i)
                if (at[i] == '/') dir = i + 1;
        next = (char *)alloc_array(c, dir + (size_t)len + 1, 1);
        memcpy(next, at, dir);
        memcpy(next + dir, link, (size_t)len);
        next[dir + (size_t)len] = '\0';
        if (cur) release(c, cur);
        at = cur = next;
    }
    return at;
}

/* The staged file takes what a save keeps of the file it will replace
   (the library's save over it keeps the staged file's): created here,
   private, then given the old file's owner and group where allowed (else
   no group bits) and its permission bits. A new path: the umask's bits. */
static void stage_like_old(cli *c, const staged *s)
{
    struct stat st;
    mode_t mode;
    int fd;
    if (stat(s->to, &st) != 0 || !S_ISREG(st.st_mode)) return;
    (void)remove(s->tmp); /* left by a killed process with this pid */
    fd = open(s->tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) die(c, "-%s: cannot create '%s': %s", s->flag, s->tmp, strerror(errno));
    mode = st.st_mode & 07777;
    if (fchown(fd, st.st_uid, st.st_gid) != 0 && fchown(fd, (uid_t)-1, st.st_gid) != 0)
        mode &= (mode_t)~070;
    if (fchmod(fd, mode) != 0) {
        int e = errno;
        close(fd);
        die(c, "-%s: cannot set the mode of '%s': %s", s->flag, s->tmp, strerror(e));
    }
    close(fd);
}

/* "<to>.<pid>.part": where a staged file waits, next to its path */
static staged *stage_file(cli *c, const char *flag, const char *to)
{
    size_t n = strlen(to) + 32;
    staged *s = (staged *)calloc(1, sizeof *s), **q;
    if (!s) die(c, "out of memory");
    s->tmp = (char *)malloc(n);
    if (!s->tmp) {
        free(s);
        die(c, "out of memory");
    }
    snprintf(s->tmp, n, "%s.%ld.part", to, (long)getpid());
    s->to = to;
    s->flag = flag;
    s->c = c;
    for (q = &c->staged; *q; q = &(*q)->next) {}
    *q = s;
    own(c, s, drop_staged);
    stage_like_old(c, s);
    return s;
}

/* Flush a folder's entries to the disk (best effort, as the library's
   save does): a rename done is a rename kept after a power loss. */
static void sync_folder_of(const char *path)
{
    char dir[4096];
    int fd;
    folder_of(path, dir, sizeof dir);
    fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* Every staged output was written: rename each over its path, so that a
   failed second output (-output-contexts) never leaves the first replaced.
   They go in the order they were staged, -output-contexts (written
   first) before -output, so the new -output is there only beside the
   new -output-contexts; a kill between the two leaves the whole new
   -output as its NAME.<pid>.part alone (docs/CLI.md, "Both outputs or
   neither"), as does a failed last rename. */
static void commit_outputs(cli *c)
{
    int renamed = 0;
    while (c->staged) {
        staged *s = c->staged;
        if (rename(s->tmp, s->to) != 0) {
            int e = errno;
            if (renamed) { /* the other output is new already: keep this one's new file */
                s->keep = 1;
                die(c, "-%s: cannot rename '%s' to '%s': %s; the other output is the new one, "
                       "and '%s' is the whole new -%s: rename it over '%s'",
                    s->flag, s->tmp, s->to, strerror(e), s->tmp, s->flag, s->to);
            }
            die(c, "-%s: cannot rename '%s' to '%s': %s", s->flag, s->tmp, s->to, strerror(e));
        }
        ++renamed;
        sync_folder_of(s->to);
        free(s->tmp);
        s->tmp = NULL;
        release(c, s);
    }
}

static void write_vectors(cli *c, const opts *o, const char *flag, const char *path,
                          const ro_sgns_counts *cn, const ro_sgns_real *M, size_t d)
{
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    const char *why;
    ro_sgns_vectors_format fmt = vectors_format(c, o, path, &why);
    FILE *f;
    check_values(c, flag, M, cn->n, d);
    if (ro_sgns_vectors_create(cn->n, d, (const char *const *)cn->vocab.word, M, d, &v, NULL, &err) !=
        RO_SGNS_OK)
        die(c, "-%s: %s", flag, err.message);
    own(c, v, free_vectors);
    if (o->normalize) ro_sgns_vectors_normalize(v);
    if (output_target(path, &f) < 0) die(c, "-%s: cannot write '%s': %s", flag, path, strerror(errno));
    if (f) {
        ro_sgns_result rc = ro_sgns_vectors_save_file(v, fmt, f, NULL, &err);
        int e = errno, bad = ferror(f);
        if (close_in_place(f) || rc != RO_SGNS_OK) {
            const char *name = is_stdio(path) ? "standard output" : path;
            if (rc != RO_SGNS_OK && !bad) die(c, "-%s %s: %s", flag, name, err.message);
            die(c, "-%s: cannot write '%s': %s", flag, name, strerror(bad ? e : errno));
        }
    } else {
        /* train's two outputs are staged (both renamed or neither); a link is
           followed, as the library's own save follows it */
        staged *sf = c->stage ? stage_file(c, flag, link_target(c, path)) : NULL;
        if (ro_sgns_vectors_save_path(v, fmt, sf ? sf->tmp : path, NULL, &err) != RO_SGNS_OK)
            die(c, "-%s: %s", flag, err.message);
    }
    release(c, v);
}

/* -------------------------------------------------- evaluation sets */

typedef struct scorer {
    int nsets;
    const char *path[CLI_MAX_SETS];
    char name[CLI_MAX_SETS][48];
    ro_sgns_pairs *pairs[CLI_MAX_SETS];
    const char *analogy_path;
    ro_sgns_analogies *analogies;
} scorer;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_set(cli *c, scorer *s, const char *path)
{
    size_t size, len;
    char *text;
    ro_sgns_pairs *p = NULL;
    ro_sgns_error err;
    const char *b = base_name(path);
    if (s->nsets == CLI_MAX_SETS) die(c, "more than %d word-pair files", CLI_MAX_SETS);
    text = slurp(c, "eval", path, &size);
    if (ro_sgns_pairs_load_memory(text, size, &p, NULL, &err) != RO_SGNS_OK) die_lib(c, path, &err);
    release(c, text);
    s->pairs[s->nsets] = (ro_sgns_pairs *)own(c, p, free_pairs);
    s->path[s->nsets] = path;
    len = strlen(b);
    if (len > 4 && strcmp(b + len - 4, ".txt") == 0) len -= 4;
    if (len >= sizeof s->name[0]) len = sizeof s->name[0] - 1;
    memcpy(s->name[s->nsets], b, len);
    s->name[s->nsets][len] = '\0';
    ++s->nsets;
}

/* a file, or a folder's *.txt in name order; missing ones are errors */
static void add_sets(cli *c, scorer *s, const char *what, const char *path)
{
    struct stat st;
    DIR *dir;
    struct dirent *e;
    char **names;
    size_t n = 0, cap = 16, i;
    if (stat(path, &st) != 0) die(c, "%s %s: %s", what, path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        add_set(c, s, path);
        return;
    }
    dir = opendir(path);
    if (!dir) die(c, "%s %s: %s", what, path, strerror(errno));
    own(c, dir, close_dir);
    names = (char **)alloc_array(c, cap, sizeof *names);
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        char *full;
        if (len <= 4 || strcmp(e->d_name + len - 4, ".txt") != 0 || e->d_name[0] == '.') continue;
        if (n == cap) names = (char **)regrow(c, names, cap *= 2, sizeof *names);
        full = (char *)alloc_array(c, strlen(path) + len + 2, 1);
        sprintf(full, "%s/%s", path, e->d_name);
        names[n++] = full;
    }
    release(c, dir);
    if (n == 0) die(c, "%s %s: no *.txt word-pair file in this folder", what, path);
    qsort(names, n, sizeof *names, cmp_str);
    for (i = 0; i < n; ++i) add_set(c, s, names[i]);
}

static void load_analogies(cli *c, scorer *s, const char *path)
{
    size_t size;
    char *text = slurp(c, "analogy", path, &size);
    ro_sgns_analogies *q = NULL;
    ro_sgns_error err;
    if (ro_sgns_analogies_load_memory(text, size, &q, NULL, &err) != RO_SGNS_OK) die_lib(c, path, &err);
    release(c, text);
    s->analogies = (ro_sgns_analogies *)own(c, q, free_analogies);
    s->analogy_path = path;
}

/* each comma-separated item of each -eval value */
static void scorer_init(cli *c, scorer *s, const opts *o, const char *analogy)
{
    int i;
    memset(s, 0, sizeof *s);
    for (i = 0; i < o->neval; ++i) {
        char *list = dup_str(c, o->eval[i]), *item = list, *comma;
        do {
            comma = strchr(item, ',');
            if (comma) *comma = '\0';
            if (*item) add_sets(c, s, "-eval", dup_str(c, item));
            item = comma + 1;
        } while (comma);
    }
    if (analogy) load_analogies(c, s, analogy);
}

/* train's outputs against every pair file -eval read (each file of a
   folder) and the -analogy file: a save over one would destroy it. */
static void check_sets_distinct(cli *c, const opts *o, const scorer *s)
{
    cmd_file *fl = (cmd_file *)alloc_array(c, (size_t)s->nsets + 6, sizeof *fl);
    const char *out[5][2];
    int i, n = 0;
    out[0][0] = "output", out[0][1] = o->output;
    out[1][0] = "output-contexts", out[1][1] = o->output_ctx;
    out[2][0] = "save-counts", out[2][1] = o->save_counts;
    out[3][0] = "checkpoint", out[3][1] = o->checkpoint;
    out[4][0] = "curve", out[4][1] = o->curve;
    for (i = 0; i < 5 + s->nsets + 1; ++i) {
        cmd_file *f = &fl[n];
        f->may_be = NULL;
        f->output = i < 5;
        f->flag = i < 5 ? out[i][0] : i < 5 + s->nsets ? "eval" : "analogy";
        f->path = i < 5 ? out[i][1] : i < 5 + s->nsets ? s->path[i - 5] : s->analogy_path;
        if (f->path) ++n;
    }
    check_distinct(c, fl, n);
    release(c, fl);
}

/* is word w in the vocabulary (a ro_sgns_vocab) / the vectors? */
typedef int (*has_word_fn)(const void *where, const char *w);
static int in_vocab(const void *where, const char *w)
{
    return ro_sgns_vocab_find((const ro_sgns_vocab *)where, w, strlen(w)) >= 0;
}
static int in_vectors(const void *where, const char *w)
{
    size_t row;
    return ro_sgns_vectors_find((const ro_sgns_vectors *)where, w, &row);
}

static int any_word(const void *where, const char *w)
{
    (void)where;
    (void)w;
    return 1;
}

static int cmp_question(const void *a, const void *b)
{
    const char *const *x = *(const char *const *const *)a, *const *y = *(const char *const *const *)b;
    int k, r = 0;
    for (k = 0; k < 4 && r == 0; ++k) r = strcmp(x[k], y[k]);
    return r;
}

/* The distinct questions with all four words in where: a question asked
   three times is one item of a score, not three. */
static size_t usable_questions(cli *c, const ro_sgns_analogies *q, has_word_fn has,
                               const void *where)
{
    char ***list = (char ***)alloc_array(c, q->n + 1, sizeof *list);
    size_t j, m = 0, distinct = 0;
    for (j = 0; j < q->n; ++j) {
        int k, ok = 1;
        for (k = 0; k < 4; ++k) ok &= has(where, q->words[4 * j + (size_t)k]);
        if (ok) list[m++] = q->words + 4 * j;
    }
    qsort(list, m, sizeof *list, cmp_question);
    for (j = 0; j < m; ++j) distinct += j == 0 || cmp_question(&list[j - 1], &list[j]) != 0;
    release(c, list);
    return distinct;
}

/* before any training: every set must have CLI_MIN_ITEMS usable items */
static void scorer_check(cli *c, const scorer *s, const ro_sgns_vocab *vocab)
{
    int i;
    size_t j, used;
    for (i = 0; i < s->nsets; ++i) {
        const ro_sgns_pairs *p = s->pairs[i];
        for (used = j = 0; j < p->n; ++j)
            used += ro_sgns_vocab_find(vocab, p->word1[j], strlen(p->word1[j])) >= 0 &&
                    ro_sgns_vocab_find(vocab, p->word2[j], strlen(p->word2[j])) >= 0;
        if (used < CLI_MIN_ITEMS)
            die(c, "%s: only %lu of %lu pairs have both words in the vocabulary; a score needs %d",
                s->path[i], (unsigned long)used, (unsigned long)p->n, CLI_MIN_ITEMS);
    }
    if (s->analogies) {
        const ro_sgns_analogies *q = s->analogies;
        used = usable_questions(c, q, in_vocab, vocab);
        if (used < CLI_MIN_ITEMS)
            die(c, "%s: only %lu of %lu questions are distinct with all four words in the "
                   "vocabulary; a score needs %d",
                s->analogy_path, (unsigned long)used, (unsigned long)q->n, CLI_MIN_ITEMS);
    }
}

/* scores of v: one per set, then the analogy accuracy; their mean */
static ro_sgns_result scorer_run(const scorer *s, const ro_sgns_vectors *v, double *score,
                                 double *mean, ro_sgns_error *err)
{
    int i, n = 0;
    double sum = 0;
    for (i = 0; i < s->nsets; ++i) {
        ro_sgns_similarity_result r;
        ro_sgns_result rc = ro_sgns_similarity_eval(v, s->pairs[i], NULL, &r, NULL, err);
        if (rc != RO_SGNS_OK) return rc;
        score[n++] = r.spearman;
        sum += r.spearman;
    }
    if (s->analogies) {
        ro_sgns_analogy_result *r = NULL;
        ro_sgns_result rc = ro_sgns_analogy_eval(v, s->analogies, NULL, &r, NULL, err);
        if (rc != RO_SGNS_OK) return rc;
        score[n++] = r->accuracy;
        sum += r->accuracy;
        ro_sgns_analogy_result_free(r);
    }
    *mean = n ? sum / n : NAN;
    return RO_SGNS_OK;
}

/* ============================================================ count */

#define H_TRAIN_TEXT "corpus, tokens between whitespace; - = standard\ninput"
#define H_WINDOW "words on each side ({D}, as word2vec's -window;\nthe paper's code used 2)"
#define H_MIN_COUNT "keep words seen >= N times ({D}; the paper: 201)"
#define H_MAX_VOCAB "keep at most the N most frequent words ({D} = all)"
#define H_MEMORY "counting's memory budget, like 2G or 500M\n({D}; at least 1M)"
#define H_DYNAMIC "0 fixed ({D}); 1 sampled per word as word2vec\nand fastText do; 2 weighted, (L - t + 1) / L at\ndistance t: 1's expectation"
#define H_CROSS "let windows cross line breaks ({D})"
#define H_ALLOW_BINARY "count input that is not text: NUL bytes, UTF-16,\nmostly invalid UTF-8 ({D}: refused)"
#define H_THREADS "OpenMP threads (default: all cores)"
#define H_BINARY_READ "1 word2vec binary, 0 text (default: by name)"
/* how eval, neighbors and objective read vectors files */
#define FLAGS_READ_FORMAT                                                                       \
    F("binary", T_01, binary, 0, 0, 1, "0|1", H_BINARY_READ),                                  \
        F("format", T_STR, format, 0, 0, 0, "FMT", "w2v, w2v-binary or glove (default: by name)")

static const flag_spec COUNT_FLAGS[] = {
    G("flags:"),
    F("train", T_STR, train, 0, 0, 0, "TEXT", H_TRAIN_TEXT " (required)"),
    F("output", T_STR, output, 0, 0, 0, "COUNTS", "counts file to write (required)"),
    F("add", T_STR, add, 0, 0, 0, "COUNTS",
      "counts of an earlier text: -output is then the\ncounts of that text followed by TEXT, the same\n"
      "bytes as counting both when COUNTS kept every\nword (-min-count 1) and nothing is drawn\n"
      "(-sample 0, -dynamic-window 0 or 2); else a\nwarning says what it cannot know. The window\n"
      "flags, -min-count and -max-vocab default to\nCOUNTS' own; a window flag that differs is\n"
      "refused"),
    F("window", T_INT, window, 0, 1, 65535, "L", H_WINDOW),
    F("min-count", T_INT, min_count, 0, 0, 1e18, "N", H_MIN_COUNT),
    F("max-vocab", T_INT, max_vocab, 0, 0, 4e9, "N", H_MAX_VOCAB),
    F("memory", T_BYTES, memory, 0, 0, 0, "BYTES", H_MEMORY),
    F("dynamic-window", T_INT, dynamic_window, 0, 0, 2, "0|1|2", H_DYNAMIC),
    F("sample", T_NUM, sample, 0, 0, 1, "T",
      "subsample frequent words with word2vec's -sample\nthreshold T ({D} = off; word2vec: 1e-3)"),
    F("cross-lines", T_01, cross_lines, 0, 0, 1, "0|1", H_CROSS),
    F("allow-binary", T_01, allow_binary, 0, 0, 1, "0|1", H_ALLOW_BINARY),
    F("seed", T_INT, seed, 0, 0, 9e18, "S", "for -dynamic-window 1 and -sample ({D})"),
    F("threads", T_INT, threads, 0, 1, 4096, "N", H_THREADS),
    F("quiet", T_SWITCH, quiet, 0, 0, 0, NULL, "no progress on stderr"),
    END};

#define FILES_TEXT                                                                              \
    "  TEXT     UTF-8 (or any ASCII-based) text; a token is a run of bytes above\n"       \
    "           0x20: every byte from 0x00 to 0x20 splits tokens (space, tab,\n"            \
    "           newline, '\\r', '\\v', '\\f', NUL and the other control bytes);\n"    \
    "           a line break ends the windows unless -cross-lines 1. Input that\n"         \
    "           is not text (NUL bytes, UTF-16, mostly invalid UTF-8 in its first\n"       \
    "           MiB) is refused unless -allow-binary 1. - is standard input.\n"
#define FILES_COUNTS                                                                            \
    "  COUNTS   ro-sgns's binary counts: the vocabulary with its counts, #(w,c) as a\n"       \
    "           sparse matrix, the marginals, a checksum, the flags that made them.\n"
#define FILES_VECTORS                                                                           \
    "  VECTORS  by name, for reading and writing alike: .bin word2vec binary;\n"              \
    "           .glove GloVe text (no header); any other name (.txt, .vec, ...)\n"            \
    "           word2vec text (\"V d\", then a word and d numbers a line).\n"                 \
    "           -binary 0|1 or -format w2v|w2v-binary|glove overrides the name.\n"            \
    "           Text without a header line (GloVe, gensim's write_header=False)\n"            \
    "           is read as such; a file whose content disagrees with its name is\n"           \
    "           an error. - is standard output (text) or input.\n"
#define FILES_PAIRS                                                                             \
    "  PAIRS    word1 word2 score, a pair a line (wordsim353, SimLex-999, MEN);\n"            \
    "           '#' starts a comment. A folder stands for its *.txt files.\n"
#define FILES_ANALOGY                                                                           \
    "  ANALOGY  word2vec's questions-words.txt: ': section' lines, then a b c d\n"            \
    "           a line (a is to b as c is to d).\n"

static const cmd_desc COUNT_CMD = {
    "count", "usage: ro-sgns count -train TEXT -output COUNTS [flags]",
    "\nCounts the word-context pairs of a corpus within a window: the matrix\n"
    "#(w,c) that 'train -counts' and 'objective' use. 'train -train TEXT' counts\n"
    "by itself; count once (here, or with train's -save-counts) to train several\n"
    "times.\n",
    COUNT_FLAGS, "files:\n" FILES_TEXT FILES_COUNTS, 0};

static void set_threads(const opts *o)
{
#ifdef _OPENMP
    if (o->threads > 0) omp_set_num_threads((int)o->threads);
#else
    (void)o;
#endif
}

static ro_sgns_count_config count_config(const opts *o)
{
    ro_sgns_count_config cfg = ro_sgns_count_config_default();
    cfg.window = (int)o->window;
    cfg.min_count = (uint64_t)o->min_count;
    cfg.max_vocab = (uint64_t)o->max_vocab;
    cfg.memory_budget = (uint64_t)o->memory;
    cfg.dynamic_window = (int)o->dynamic_window;
    cfg.sample = o->sample;
    cfg.cross_lines = o->cross_lines;
    cfg.seed = (uint64_t)o->seed;
    cfg.allow_binary = o->allow_binary;
    return cfg;
}

/* counting refused input that is not text: say how to count it anyway */
static void hint_binary(ro_sgns_error *err)
{
    size_t n = strlen(err->message);
    if (err->code == RO_SGNS_ERR_FORMAT)
        snprintf(err->message + n, sizeof err->message - n, "; -allow-binary 1 counts it anyway");
}

/* too little text for vectors to mean anything: a warning (the program
   goes on: small texts make quick tests) */
static void warn_small(cli *c, const char *path, const ro_sgns_counts *cn)
{
    if (cn->n < 2)
        warn(c, "%s: the vocabulary has %lu word: nothing to tell words apart (a lower "
             "-min-count or a larger text)", display(path), (unsigned long)cn->n);
    else if (cn->corpus_tokens < CLI_FEW_TOKENS)
        warn(c, "%s: only %llu tokens: too few for word vectors to mean anything", display(path),
             (unsigned long long)cn->corpus_tokens);
}

/* the pair pass's progress (long with a wide window) */
typedef struct pair_progress {
    cli *c;
    double t0, f0; /* the first report: its time and fraction */
    int started;
} pair_progress;

static int on_pairs(const ro_sgns_count_progress *p, void *user)
{
    pair_progress *pp = (pair_progress *)user;
    double frac = p->positions_total ? (double)p->positions / (double)p->positions_total : 1;
    double t = now(), rate;
    char eta[32];
    if (!pp->started) {
        pp->started = 1;
        pp->t0 = t;
        pp->f0 = frac;
    }
    rate = (frac - pp->f0) / (t - pp->t0 + 1e-9);
    status(pp->c, p->positions == p->positions_total, "count: pairs %5.1f%% of %llu positions  ETA %s",
           100 * frac, (unsigned long long)p->positions_total,
           fmt_secs(rate > 0 ? (1 - frac) / rate : -1, eta, sizeof eta));
    return 0;
}

/* count the text (a file, standard input, or text already in memory) */
static ro_sgns_counts *count_text(cli *c, const char *path, const char *text, size_t size,
                                  const ro_sgns_count_config *config, int vocab_only)
{
    ro_sgns_counts *cn = NULL;
    ro_sgns_error err;
    double t0 = now();
    ro_sgns_count_config copy = *config;
    const ro_sgns_count_config *cfg = &copy;
    pair_progress pp;
    memset(&pp, 0, sizeof pp);
    pp.c = c;
    if (!vocab_only) {
        copy.callback = on_pairs;
        copy.user = &pp;
    }
    if (text) {
        note(c, "count: counting %s (%.1f MB in memory) ...", display(path), (double)size / 1e6);
        if (ro_sgns_count_memory(text, size, cfg, &cn, NULL, &err) != RO_SGNS_OK) {
            hint_binary(&err);
            die_lib(c, display(path), &err);
        }
    } else {
        reader r;
        reader_open(c, &r, "train", path, "count: reading");
        if (ro_sgns_count_callback(reader_read, &r, cfg, &cn, NULL, &err) != RO_SGNS_OK) {
            end_line(c);
            hint_binary(&err);
            die_read(c, &r, &err);
        }
        close_read(c, r.f);
    }
    own(c, cn, free_counts);
    c->read_secs = pp.started ? pp.t0 - t0 : now() - t0; /* pairs begin once the text is read */
    if (vocab_only)
        note(c, "count: %llu tokens, %llu distinct words, vocabulary %lu (min-count %llu), %.1f s",
             (unsigned long long)cn->corpus_tokens, (unsigned long long)cn->distinct_words,
             (unsigned long)cn->n, (unsigned long long)cfg->min_count, now() - t0);
    else
        note(c,
             "count: %llu tokens, %llu distinct words, vocabulary %lu (min-count %llu), %llu pairs, "
             "window %d, %.1f s",
             (unsigned long long)cn->corpus_tokens, (unsigned long long)cn->distinct_words,
             (unsigned long)cn->n, (unsigned long long)cfg->min_count, (unsigned long long)cn->nnz,
             cfg->window, now() - t0);
    warn_small(c, path, cn);
    return cn;
}

static ro_sgns_counts *load_counts(cli *c, const char *path)
{
    ro_sgns_counts *cn = NULL;
    ro_sgns_error err;
    reader r;
    reader_open(c, &r, "counts", path, "loading");
    if (ro_sgns_counts_load_callback(reader_read, &r, &cn, NULL, &err) != RO_SGNS_OK) {
        end_line(c);
        die_read(c, &r, &err);
    }
    own(c, cn, free_counts);
    reader_at_end(c, &r, "counts");
    close_read(c, r.f);
    /* the library loads version 1 files, whose checksum misses some errors
       (docs/GUIDE.md, section 9): the version is bytes 8-11 */
    if (r.nhead >= 12 && r.head[8] == 1 && !r.head[9] && !r.head[10] && !r.head[11])
        warn(c, "%s is a version 1 counts file, whose checksum misses some damage: count the "
             "corpus again (ro-sgns count) to write version 2", display(path));
    note(c, "counts %s: vocabulary %lu, %llu pairs, window %d, %.1f s", display(path),
         (unsigned long)cn->n, (unsigned long long)cn->nnz, cn->config.window, now() - r.t0);
    return cn;
}

static void save_counts(cli *c, const char *flag, const ro_sgns_counts *cn, const char *path)
{
    ro_sgns_error err;
    FILE *f;
    if (output_target(path, &f) < 0) die(c, "-%s: cannot write '%s': %s", flag, path, strerror(errno));
    if (f) {
        ro_sgns_result rc = ro_sgns_counts_save_callback(cn, write_file_fn, f, &err);
        int e = errno, bad = ferror(f);
        if (close_in_place(f) || rc != RO_SGNS_OK) {
            if (rc != RO_SGNS_OK && !bad) die(c, "-%s %s: %s", flag, path, err.message);
            die(c, "-%s: cannot write '%s': %s", flag, path, strerror(bad ? e : errno));
        }
    } else if (ro_sgns_counts_save_path(cn, path, &err) != RO_SGNS_OK) {
        die(c, "-%s: %s", flag, err.message);
    }
    note(c, "counts saved to %s", path);
}

/* count -add OLD: the settings the merge shares with OLD. A window flag
   given with another value than OLD's is refused; one not given, and
   -min-count and -max-vocab when not given, take OLD's. */
static void merge_settings(cli *c, const unsigned char *given, const ro_sgns_counts *old,
                           const char *path, ro_sgns_count_config *cfg)
{
    const ro_sgns_count_config *o = &old->config;
    const char *flag = NULL;
    char mine[64] = "", theirs[64] = "";
    int draws = o->sample > 0 || o->dynamic_window == RO_SGNS_WINDOW_SAMPLED;
    if (was_given(&COUNT_CMD, given, "window") && cfg->window != o->window) {
        flag = "window";
        snprintf(mine, sizeof mine, "%d", cfg->window);
        snprintf(theirs, sizeof theirs, "%d", o->window);
    } else if (was_given(&COUNT_CMD, given, "dynamic-window") &&
               cfg->dynamic_window != o->dynamic_window) {
        flag = "dynamic-window";
        snprintf(mine, sizeof mine, "%d", cfg->dynamic_window);
        snprintf(theirs, sizeof theirs, "%d", o->dynamic_window);
    } else if (was_given(&COUNT_CMD, given, "sample") && !(cfg->sample == o->sample)) {
        flag = "sample";
        snprintf(mine, sizeof mine, "%g", cfg->sample);
        snprintf(theirs, sizeof theirs, "%g", o->sample);
    } else if (was_given(&COUNT_CMD, given, "cross-lines") && cfg->cross_lines != o->cross_lines) {
        flag = "cross-lines";
        snprintf(mine, sizeof mine, "%d", cfg->cross_lines);
        snprintf(theirs, sizeof theirs, "%d", o->cross_lines);
    } else if (draws && was_given(&COUNT_CMD, given, "seed") && cfg->seed != o->seed) {
        flag = "seed";
        snprintf(mine, sizeof mine, "%llu", (unsigned long long)cfg->seed);
        snprintf(theirs, sizeof theirs, "%llu", (unsigned long long)o->seed);
    }
    if (flag)
        die(c, "-%s %s: -add %s was counted with -%s %s, and counts merge only with the same "
            "(leave -%s out to take it)", flag, mine, display(path), flag, theirs, flag);
    cfg->window = o->window;
    cfg->dynamic_window = o->dynamic_window;
    cfg->sample = o->sample;
    cfg->cross_lines = o->cross_lines;
    cfg->close_gaps = o->close_gaps;
    cfg->seed = o->seed;
    if (!was_given(&COUNT_CMD, given, "min-count")) cfg->min_count = o->min_count;
    if (!was_given(&COUNT_CMD, given, "max-vocab")) cfg->max_vocab = o->max_vocab;
}

/* count -add: say what the merge could not know and what it did instead */
static void merge_warnings(cli *c, const ro_sgns_merge_info *info, const ro_sgns_counts *old,
                           const char *path, const ro_sgns_count_config *cfg)
{
    if (info->inexact & RO_SGNS_MERGE_DROPPED)
        warn(c, "-add %s kept %lu of its text's %llu distinct words (-min-count %llu%s): the "
             "%llu words of -train that it lacks and that may reach -min-count (the most "
             "frequent: '%s') could have occurred in the old text unseen: they are counted from "
             "-train alone, their pairs in the old text are missing, and a word too rare in each "
             "text but not in both is left out. Count the old text with -min-count 1 (no "
             "-max-vocab) for exact merges", display(path),
             (unsigned long)old->n, (unsigned long long)old->distinct_words,
             (unsigned long long)old->config.min_count,
             old->config.max_vocab ? ", -max-vocab" : "", (unsigned long long)info->unknown_words,
             info->example);
    if (info->inexact & (RO_SGNS_MERGE_UNSEEN | RO_SGNS_MERGE_GAPS))
        warn(c, "both texts' counts dropped words, or words dropped now moved gaps: the merge "
             "keeps each text's pairs as counted");
    if (info->inexact & RO_SGNS_MERGE_DRAWS)
        warn(c, "%s: each text kept its own random draws, made with its own word frequencies "
             "and token positions, not the joined text's: the merge follows the same "
             "distribution as counting both, not the same bytes (-sample 0 and -dynamic-window "
             "0 or 2 merge exactly)",
             cfg->sample > 0 ? "-sample" : "-dynamic-window 1");
    if (info->inexact & RO_SGNS_MERGE_CROSS)
        warn(c, "-cross-lines 1: the windows across the end of the old text into -train are "
             "not counted (their words are not in the counts): at most %d pairs each way",
             cfg->window * (cfg->window + 1) / 2);
    if (info->inexact & RO_SGNS_MERGE_ROUNDED)
        warn(c, "%llu pairs were counted above 2^24 (float's exact integers) in a part: their "
             "sums start from the rounded counts", (unsigned long long)info->rounded_pairs);
}

/* count -train NEW -add OLD: NEW counted keeping every word, then merged */
static ro_sgns_counts *count_merge(cli *c, const opts *o, const unsigned char *given,
                                   ro_sgns_count_config *cfg)
{
    ro_sgns_counts *old = load_counts(c, o->add), *cn, *merged = NULL;
    ro_sgns_count_config part;
    ro_sgns_merge_info info;
    ro_sgns_error err;
    merge_settings(c, given, old, o->add, cfg);
    part = *cfg;
    part.min_count = 1; /* every word of the new text: the merge picks the vocabulary */
    part.max_vocab = 0;
    cn = count_text(c, o->train, NULL, 0, &part, 0);
    if (ro_sgns_counts_merge(old, cn, cfg->min_count, cfg->max_vocab, &merged, &info, NULL,
                             &err) != RO_SGNS_OK)
        die(c, "-add %s: %s", display(o->add), err.message);
    own(c, merged, free_counts);
    merge_warnings(c, &info, old, o->add, cfg);
    release(c, cn);
    release(c, old);
    note(c, "count: merged: %llu tokens, vocabulary %lu (min-count %llu), %llu pairs%s",
         (unsigned long long)merged->corpus_tokens, (unsigned long)merged->n,
         (unsigned long long)cfg->min_count, (unsigned long long)merged->nnz,
         info.inexact ? "" : ", exact");
    return merged;
}

static int cmd_count(cli *c, int argc, char **argv)
{
    opts o;
    unsigned char given[64] = {0};
    ro_sgns_count_config cfg;
    ro_sgns_counts *cn;
    opts_default(&o);
    parse_flags(c, &COUNT_CMD, argc, argv, &o, given, NULL);
    c->quiet = o.quiet;
    if (!o.train) die(c, "-train TEXT is required");
    if (!o.output) die(c, "-output COUNTS is required");
    if (is_stdio(o.output)) die(c, "-output -: counts are binary; give a file name");
    {
        const cmd_file files[] = {{"output", o.output, 1, NULL}, {"train", o.train, 0, NULL},
                                  {"add", o.add, 0, NULL}};
        check_distinct(c, files, o.add ? 3 : 2);
    }
    check_output(c, "output", o.output, CLI_TMP_EXTRA);
    set_threads(&o);
    cfg = count_config(&o);
    cn = o.add ? count_merge(c, &o, given, &cfg) : count_text(c, o.train, NULL, 0, &cfg, 0);
    save_counts(c, "output", cn, o.output);
    return 0;
}

/* ============================================================ train */

static const flag_spec TRAIN_FLAGS[] = {
    G("input and output:"),
    F("train", T_STR, train, 0, 0, 0, "TEXT",
      H_TRAIN_TEXT ". Counted unless -counts; SGD trains on it"),
    F("counts", T_STR, counts, 0, 0, 0, "COUNTS", "reuse counts (from 'count' or -save-counts)"),
    F("save-counts", T_STR, save_counts, W_COUNT, 0, 0, "FILE", "keep the counts made from -train"),
    F("output", T_STR, output, 0, 0, 0, "VECTORS", "the word vectors (required); - = standard output"),
    F("output-contexts", T_STR, output_ctx, 0, 0, 0, "FILE", "the context vectors C too"),
    F("binary", T_01, binary, 0, 0, 1, "0|1",
      "1 word2vec binary, 0 text (default: by name:\n.bin binary, else text)"),
    F("format", T_STR, format, 0, 0, 0, "FMT", "w2v, w2v-binary or glove (default: by name)"),
    F("normalize", T_01, normalize, 0, 0, 1, "0|1",
      "1: write every vector at unit length (a zero\nrow stays 0), as gensim's unit_normalize_all;\n"
      "cosines are unchanged ({D})"),
    F("method", T_STR, method, 0, 0, 0, "ro|svd|sgd",
      "RO-SGNS ({D}), SVD-SPPMI alone, or word2vec's SGD"),
    F("size", T_INT, size, 0, 1, 65536, "D", "dimension d ({D})"),
    {"negative", T_NUM, offsetof(opts, negative), 0, 1e-6, CLI_MAX_NEGATIVE, "K",
     "negative samples k ({D}; at most {NEG}, whole for\nSGD); -neg is hyperwords' name",
     "neg", NULL},
    F("embed", T_STR, embed, 0, 0, 0, "w|c|w+c",
      "what -output holds: w W, c C, or w+c W + C\n(hyperwords' w+c); default w for sgd\n"
      "(word2vec's output) and ro from -init sgd,\nw+c for svd and ro from other starts"),
    {"eig", T_NUM, offsetof(opts, eig), W_RO | W_SVD, 0, 1, "P",
     "W = U Sigma^P, C = V Sigma^P ({D}; the paper's\nis 0.5; hyperwords' eig)", NULL,
     "SGD gives W and C directly, without Sigma"},
    {"cds", T_NUM, offsetof(opts, cds), W_RO | W_SVD, 0.01, 1, "A",
     "context distribution smoothing in SPPMI and\nthe SGNS objective: P(c) ~ #(c)^A ({D} = off;\n"
     "{SGDCDS} from -init sgd, whose negatives are\ndrawn so, as word2vec's; hyperwords' cds)",
     NULL, "SGD draws its negatives from unigram^0.75, as word2vec"},
    F("threads", T_INT, threads, 0, 1, 4096, "N", H_THREADS),
    F("seed", T_INT, seed, 0, 0, 9e18, "S", "seed of the SVD start, SGD and -sample ({D})"),
    F("quiet", T_SWITCH, quiet, 0, 0, 0, NULL, "no progress on stderr"),
    F("force", T_SWITCH, force, W_RO | W_SVD | W_SGDRUN, 0, 0, NULL,
      "start even when the estimate (printed once the\nvocabulary is known) is past a limit: more\n"
      "memory than the machine, RLIMIT_AS or -memory\nallow, a step over -max-step-seconds or the\n"
      "run over -max-seconds"),
    F("max-step-seconds", T_NUM, max_step, W_RO, 0, 1e12, "S",
      "stop before the start when a step is estimated\nto take longer ({D}; 0: no limit)"),
    F("max-seconds", T_NUM, max_seconds, 0, 0, 1e12, "S",
      "stop before the start when the whole run (the\nSGD start, the steps, the fold, the writing) is\n"
      "estimated to take longer ({D}: no limit)"),

    G("counting -train TEXT (when no -counts is given):"),
    {"window", T_INT, offsetof(opts, window), W_PAIRS | W_SGD, 1, 65535, "L", H_WINDOW, NULL,
     "the counts were made with their own window"},
    F("min-count", T_INT, min_count, W_COUNT, 0, 1e18, "N", H_MIN_COUNT),
    F("max-vocab", T_INT, max_vocab, W_COUNT, 0, 4e9, "N", H_MAX_VOCAB),
    F("memory", T_BYTES, memory, W_PAIRS | W_RO | W_SVD | W_SGDRUN, 0, 0, "BYTES",
      "memory budget, like 2G or 500M ({D}; at least\n1M): counting stays within it, and a run stops\n"
      "before the start when its estimate (every\nstage) is above it"),
    {"dynamic-window", T_INT, offsetof(opts, dynamic_window), W_PAIRS, 0, 2, "0|1|2",
     H_DYNAMIC "; 2 for\n-init sgd: the window SGD samples, on average",
     NULL, "SGD always samples its window per word, as word2vec"},
    {"sample", T_NUM, offsetof(opts, sample), W_PAIRS | W_SGDRUN, 0, 1, "T",
     "subsample frequent words with word2vec's -sample\nthreshold T, in counting and in -method sgd ({D}\n"
     "= off: the objective counts every pair;\nword2vec: 1e-3); -init sgd has -init-sample,\n"
     "and counting for it takes -init-sample's T",
     NULL, "-init sgd's is -init-sample"},
    F("cross-lines", T_01, cross_lines, W_PAIRS, 0, 1, "0|1", H_CROSS),
    F("allow-binary", T_01, allow_binary, W_COUNT, 0, 1, "0|1", H_ALLOW_BINARY),

    G("RO-SGNS (-method ro):"),
    {"steps", T_INT, offsetof(opts, steps), W_RO, 0, 1e6, "K",
     "at most K RO steps ({RO}; from -init sgd {SGDSTEPS},\nas -min-gain ends the run; 0: write the start)",
     NULL, "SVD-SPPMI takes no steps"},
    F("init", T_STR, init, W_RO, 0, 0, "sgd|svd|FILE",
      "start: sgd SGD on -train (the default with\n-train: -iter epochs over -init-share of the\n"
      "text, -virtual-workers); svd\nSVD-SPPMI (the default from -counts alone);\n"
      "FILE word vectors (W0 = C0 unless -init-contexts)"),
    F("init-contexts", T_STR, init_ctx, W_RO, 0, 0, "FILE", "C0 for -init FILE"),
    F("init-coverage", T_NUM, init_coverage, W_RO, 0, 1, "F",
      "share of the words -init FILE must cover ({D})"),
    F("head", T_INT, head, W_RO, 0, 1e15, "N",
      "RO on the N most frequent words and contexts;\nthe others folded in after, each row solved\n"
      "against them (default: the words seen 200 times\nor more, at least 20000; 0: every word)"),
    F("fold-iter", T_INT, fold_iter, W_RO, 0, 1000, "K",
      "steps of each folded row's solve ({D})"),
    F("fold-start", T_INT, fold_start, W_RO, 0, 1, "0|1",
      "1: each folded row starts from its row of the\nstart (-init sgd or FILE), projected onto the\n"
      "head; 0: from 0 ({D})"),
    F("fold-prior", T_NUM, fold_prior, W_RO, 0, 1e6, "T",
      "each folded row's MAP estimate under a prior\naround its start, covariance T times the\n"
      "spread of the head's rarer half about theirs\n(needs -fold-start 1; {D}: none)"),
    {"init-sample", T_NUM, offsetof(opts, init_sample), W_SGDINIT, 0, 1, "T",
     "-init sgd subsamples frequent words with this\nthreshold ({D}; word2vec's -sample, whose\ndefault is 1e-3; 0 = off)", NULL,
     "it is the subsampling of -init sgd"},
    {"init-share", T_NUM, offsetof(opts, init_share), W_SGDINIT, 1e-9, 1, "F",
     "-init sgd trains on the first share F of the\ntext ({D}; whole blocks of 1024 tokens; under\none token: an error)", NULL, "it is the share of -init sgd"},
    F("min-gain", T_NUM, min_gain, W_RO, 0, 100, "P",
      "stop after a step that raises F by less than\nP percent ({D}; 0: take every -steps step)"),
    F("eta", T_NUM, eta, W_RO, 1e-30, 1e30, "S",
      "step size: eta of the scaled direction ({ETA})\nor lambda of the plain one (5e-05)"),
    F("eta-max", T_NUM, eta_max, W_RO, 0, 1e30, "S",
      "accepted steps grow (x2 a step) up to S\n(0: -eta, the default)"),
    F("grad-norm", T_01, grad_norm, W_RO, 0, 1, "0|1",
      "1: print |P_T(grad F)|, the Riemannian\ngradient's norm, at the start and after each\n"
      "step (two more sweeps a step; 0)"),
    F("direction", T_STR, direction, W_RO, 0, 0, "scaled|plain|metric",
      "grad F / B ({D}), the paper's grad F, or the\ngradient in B's metric (its steps stop only\n"
      "where P_T(grad F) = 0)"),
    F("cg-iter", T_INT, cg_iter, W_RO, 0, 1000, "N",
      "-direction metric: conjugate gradients a step\n({D}; 0: the preconditioner alone)"),
    F("safeguard", T_01, safeguard, W_RO, 0, 1, "0|1",
      "halve a step that lowers F ({D}; 0: the paper's\nfixed step)"),
    F("fuse", T_01, fuse, W_RO, 0, 1, "0|1",
      "3 products a step: the sweep at the new point\ngives the next step's D^T M V ({D}; 0: two\n"
      "sweeps a step, 4 products)"),
    F("keep-direction", T_BYTES, keep_direction, W_RO, 0, 0, "BYTES",
      "memory to keep rows of the n x m direction\nbetween sweeps: 3 products a step, not 4,\n"
      "with all n rows (n = m = 22k: 2G in float),\n4 - f with a fraction f of them ({D})"),
    F("allow-no-step", T_SWITCH, allow_no_step, W_RO, 0, 0, NULL,
      "write the start when no step is accepted\n(otherwise an error)"),
    F("checkpoint", T_STR, checkpoint, W_RO, 0, 0, "FILE",
      "save the run's state: the SGD start's (once a\nminute), the point after every step (with\n"
      "-keep-best also the best so far); a file, not a\nFIFO"),
    F("resume", T_STR, resume, W_RO, 0, 0, "FILE",
      "continue a checkpoint: the same command line\nplus -resume gives the straight run's bytes;\n"
      "-steps counts all steps (not fewer than the\ncheckpoint's); may be -checkpoint (not there\n"
      "yet: from the start)"),
    {"eval", T_LIST, offsetof(opts, eval), W_RO, 0, 0, "PAIRS",
     "Spearman after every step: a folder of *.txt\npair files, a file or a list (a,b); may repeat",
     NULL, "score the vectors with 'ro-sgns eval'"},
    F("analogy", T_STR, analogy, W_RO, 0, 0, "FILE", "3CosAdd accuracy after every step, too"),
    F("keep-best", T_SWITCH, keep_best, W_RO, 0, 0, NULL,
      "write the step with the best mean score (-eval,\n-analogy), not the last"),
    F("curve", T_STR, curve, W_RO, 0, 0, "FILE.csv", "F, time and the scores per step, as CSV"),

    G("the SVD-SPPMI start (-method svd; -method ro from -counts alone or -init svd):"),
    F("svd", T_STR, svd, W_SVDSTART, 0, 0, "krylov|subspace", "the truncated SVD ({D})"),
    F("oversample", T_INT, oversample, W_SVDSTART, 0, 1e6, "P",
      "extra columns of the search space ({D}: the\nlibrary's, 2 d krylov, max(50, d/2) subspace)"),
    F("block", T_INT, block, W_SVDSTART, 0, 1e6, "B", "krylov: columns per block ({D}: the library's)"),
    F("power-iters", T_INT, power_iters, W_SVDSTART, 0, 100, "Q", "subspace: power iterations ({D})"),

    G("SGD (-method sgd, and -init sgd; also -sample, -window):"),
    {"iter", T_INT, offsetof(opts, iter), W_SGD, 1, 1e6, "E",
     "epochs over the text, as word2vec's -iter: -method\nsgd ({SGD}), the -init sgd start ({IE})", NULL,
     "no SGD reads the text here; RO's step cap is -steps"},
    {"alpha", T_NUM, offsetof(opts, alpha), W_SGD, 1e-9, 1, "A",
     "starting learning rate ({D}), word2vec's -alpha", NULL,
     "it is the SGD learning rate (word2vec's -alpha); the exponent of Sigma is -eig"},
    F("virtual-workers", T_INT, virtual_workers, W_SGD, 0, 1024, "K",
      "K virtual workers, merged every so many blocks:\nthe same bits on any -threads (at most K used),\n"
      "K more copies of W and C ({IW} for -init sgd);\n0 Hogwild (-method sgd's default, word2vec's):\n"
      "the threads share W and C, and only -threads 1\nis reproducible"),
    {"cbow", T_01, offsetof(opts, cbow), 0, 0, 1, "0|1", NULL, NULL, NULL},
    {"hs", T_01, offsetof(opts, hs), 0, 0, 1, "0|1", NULL, NULL, NULL},
    END};

static const cmd_desc TRAIN_CMD = {
    "train",
    "usage: ro-sgns train -train TEXT -output VECTORS [-method ro|svd|sgd] [flags]\n"
    "       ro-sgns train -counts COUNTS -output VECTORS [flags]",
    "\nFrom a corpus to word vectors in one command. -method ro (the default)\n"
    "counts the text, starts from {IE} epochs of SGD on it (-init sgd; from -counts\n"
    "alone, or with -init svd, from SVD-SPPMI), takes steps of RO-SGNS (Fonarev\n"
    "et al. 2017) on the most frequent words (-head) until a step raises F by\n"
    "less than -min-gain (at most -steps), and folds the other words in; svd stops\n"
    "at SVD-SPPMI; sgd is word2vec's skip-gram\n"
    "with negative sampling. -counts reuses counts (from 'count' or -save-counts)\n"
    "instead of counting; SGD takes its vocabulary from them, or from counting\n"
    "-train. A flag that does not apply to the chosen method is an error; so are\n"
    "CBOW and hierarchical softmax (-cbow 1, -hs 1; -cbow 0 -hs 0 are accepted).\n",
    TRAIN_FLAGS,
    "files:\n" FILES_TEXT FILES_COUNTS FILES_VECTORS FILES_PAIRS FILES_ANALOGY
    "  CHECKPOINT  the point U S V^T, the steps taken and the next step size.\n"
    "  CURVE    CSV: iteration,F_e9,seconds, a column per -eval file (its name),\n"
    "           analogy, mean; row 0 is the start.\n"
    "Vectors are checked before they are written: a NaN, an Inf or a value beyond\n"
    "+-{MAX} means the run diverged; it is an error and nothing is written.\n",
    0};

/* "-method ro, -init svd" style names of where a flag applies */
static void where_text(unsigned w, char *out, size_t size)
{
    static const char *const NAMES[] = {"-method ro",
                                        "-method svd",
                                        "SGD (-method sgd, -init sgd)",
                                        "counting -train TEXT (without -counts)",
                                        "counting pairs (-method ro|svd without -counts, or -save-counts)",
                                        "the SVD-SPPMI start (-method svd, ro's -init svd)",
                                        "-init sgd",
                                        "-method sgd"};
    size_t i, len = 0;
    out[0] = '\0';
    for (i = 0; i < sizeof NAMES / sizeof NAMES[0]; ++i)
        if (w & (1u << i)) {
            snprintf(out + len, size - len, "%s%s", len ? ", " : "", NAMES[i]);
            len = strlen(out);
        }
}

/* the W (or C) embeddings of a point as a new n x d matrix */
static ro_sgns_result point_matrix(const ro_sgns_factors *x, double eig, ro_sgns_embedding_kind kind,
                                   ro_sgns_real **out, ro_sgns_error *err)
{
    size_t rows = kind == RO_SGNS_EMBED_C ? x->m : x->n;
    ro_sgns_real *M;
    ro_sgns_result rc;
    if (rows > (size_t)-1 / sizeof(ro_sgns_real) / x->d) {
        snprintf(err->message, sizeof err->message, "embeddings: %lu x %lu too large",
                 (unsigned long)rows, (unsigned long)x->d);
        return RO_SGNS_ERR_SIZE_OVERFLOW;
    }
    M = (ro_sgns_real *)malloc(rows * x->d * sizeof *M);
    if (!M) {
        snprintf(err->message, sizeof err->message, "out of memory");
        return RO_SGNS_ERR_OUT_OF_MEMORY;
    }
    rc = ro_sgns_factors_embeddings(x, eig, kind, M, x->d, NULL, err);
    if (rc != RO_SGNS_OK) {
        free(M);
        return rc;
    }
    *out = M;
    return RO_SGNS_OK;
}

/* the embeddings of a point as a vectors object (for scoring) */
static ro_sgns_result point_vectors(const ro_sgns_factors *x, const ro_sgns_counts *cn, double eig,
                                    ro_sgns_embedding_kind kind, ro_sgns_vectors **v,
                                    ro_sgns_error *err)
{
    ro_sgns_real *M = NULL;
    ro_sgns_result rc = point_matrix(x, eig, kind, &M, err);
    if (rc != RO_SGNS_OK) return rc;
    /* a head point (-head) has the first x->n words */
    rc = ro_sgns_vectors_create(kind == RO_SGNS_EMBED_C ? x->m : x->n, x->d,
                                (const char *const *)cn->vocab.word, M, x->d, v, NULL, err);
    free(M);
    return rc;
}

typedef struct train_ctx {
    cli *c;
    const opts *o;
    const ro_sgns_counts *cn;
    const scorer *sc;
    ro_sgns_embedding_kind kind;
    FILE *curve;
    const char *curve_path;
    ro_sgns_factors *best; /* -keep-best: the best point so far */
    double best_mean;
    int have_best;
    uint64_t first, last; /* steps: where the run started, where it ends */
    double t0;
    double step_secs;     /* the steps' own seconds, summed (the run's ETA) */
    double step_est;      /* a step's estimate (before one is done) */
    int sweep;            /* inside a step: the sweep reported last, */
    uint64_t sweep_it;    /* in which step, */
    double sweep_t0;      /* when its first report came, */
    uint64_t sweep_b0;    /* with how many blocks done */
    int failed;
    int converged;        /* a step raised F by less than -min-gain percent */
    double last_gain;     /* that step's gain, percent */
    double tangent0;      /* |dX| / step of this run's first step above rounding */
    const ro_sgns_problem *prob; /* -grad-norm: the problem the steps climb, */
    double grad0;         /* and |P_T(grad F)| at the start */
    const ro_sgns_real *W0, *C0; /* the fold's start rows (cn->n x d), or NULL: */
    uint64_t fingerprint; /* with the counts' fingerprint, in each checkpoint */
    char failure[RO_SGNS_MESSAGE_SIZE + 256];
} train_ctx;

/* A test hook (docs/TESTING.md): RO_SGNS_CLI_KILL_AT=STAGE:N kills the
   run (SIGKILL, as kill -9 does) the N-th time it passes STAGE: count
   (counting done), sgd (a state of the SGD start checkpointed), start (the
   SGD start's end checkpointed), step (a step checkpointed), fold (the
   fold about to start), save (the outputs written, not yet renamed). */
static void kill_point(const char *stage)
{
    static unsigned long seen;
    const char *at = getenv("RO_SGNS_CLI_KILL_AT");
    size_t len = strlen(stage);
    if (!at || strncmp(at, stage, len) != 0 || at[len] != ':') return;
    if (++seen == strtoul(at + len + 1, NULL, 10)) {
        fflush(NULL);
        raise(SIGKILL);
    }
}

/* -checkpoint: point x (NULL in the SGD start), -keep-best's best point
   (or NULL) and its score, the run's record (stage, stop decision, rows);
   a regular file replaced whole (the library's temporary file and rename)
   only once the new one is complete. 0, or 1 with the reason in failure
   (when: "after step 3"). */
static int save_checkpoint(const opts *o, const ro_sgns_factors *x, const ro_sgns_factors *best,
                           double score, const ro_sgns_run_record *run, const char *when,
                           char *failure, size_t size)
{
    FILE *f;
    ro_sgns_result rc;
    ro_sgns_error err;
    if (output_target(o->checkpoint, &f) < 0) {
        snprintf(failure, size, "-checkpoint: cannot write '%s': %s", o->checkpoint, strerror(errno));
        return 1;
    }
    if (f) {
        int e, bad;
        rc = ro_sgns_factors_save_run_callback(x, best, score, run, write_file_fn, f, &err);
        e = errno;
        bad = ferror(f);
        if (close_in_place(f) || bad) {
            rc = RO_SGNS_ERR_IO;
            snprintf(err.message, sizeof err.message, "cannot write '%.200s': %s", o->checkpoint,
                     strerror(bad ? e : errno));
        }
    } else {
        rc = ro_sgns_factors_save_run_path(x, best, score, run, o->checkpoint, &err);
    }
    if (rc != RO_SGNS_OK) {
        snprintf(failure, size, "-checkpoint %s: %s", when, err.message);
        return 1;
    }
    return 0;
}

static int curve_row(train_ctx *t, uint64_t it, double F, double secs, const double *score, double mean)
{
    int i, n = t->sc->nsets + (t->sc->analogies ? 1 : 0);
    if (!t->curve) return 0;
    fprintf(t->curve, "%llu,%.6f,%.4g", (unsigned long long)it, F * 1e-9, secs);
    for (i = 0; i < n; ++i) fprintf(t->curve, ",%.4f", score[i]);
    if (n) fprintf(t->curve, ",%.4f", mean);
    fputc('\n', t->curve);
    if (fflush(t->curve) != 0 || ferror(t->curve)) {
        snprintf(t->failure, sizeof t->failure, "-curve: cannot write '%s': %s", t->curve_path,
                 strerror(errno));
        return 1;
    }
    return 0;
}

/* scores of the point x: fills score[] and mean; 1 on failure */
static int score_point(train_ctx *t, const ro_sgns_factors *x, double *score, double *mean)
{
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    *mean = NAN;
    if (!t->sc->nsets && !t->sc->analogies) return 0;
    if (point_vectors(x, t->cn, t->o->eig, t->kind, &v, &err) != RO_SGNS_OK ||
        scorer_run(t->sc, v, score, mean, &err) != RO_SGNS_OK) {
        ro_sgns_vectors_free(v);
        snprintf(t->failure, sizeof t->failure, "scoring step %llu: %s",
                 (unsigned long long)x->iteration, err.message);
        return 1;
    }
    ro_sgns_vectors_free(v);
    return 0;
}

static void keep_if_best(train_ctx *t, const ro_sgns_factors *x, double mean)
{
    ro_sgns_factors *b = t->best;
    if (!b || !(mean > t->best_mean || !t->have_best)) return;
    memcpy(b->U, x->U, x->n * x->d * sizeof(ro_sgns_real));
    memcpy(b->S, x->S, x->d * x->d * sizeof(ro_sgns_real));
    memcpy(b->V, x->V, x->m * x->d * sizeof(ro_sgns_real));
    b->iteration = x->iteration;
    b->next_step = x->next_step;
    t->best_mean = mean;
    t->have_best = 1;
}

static void score_line(const train_ctx *t, const double *score, double mean, char *out, size_t size)
{
    int i;
    size_t len = 0;
    out[0] = '\0';
    for (i = 0; i < t->sc->nsets && len < size; ++i, len = strlen(out))
        snprintf(out + len, size - len, "  %s %.3f", t->sc->name[i], score[i]);
    if (t->sc->analogies && len < size) {
        snprintf(out + len, size - len, "  analogy %.3f", score[i]);
        len = strlen(out);
    }
    if ((t->sc->nsets || t->sc->analogies) && len < size)
        snprintf(out + len, size - len, "  mean %.4f", mean);
}

/* Inside a step (report_blocks): a progress line (status: at most every
   10 s on a pipe), the blocks of the sweep done and the step's ETA from
   this sweep's pace; two sweeps a step (-fuse 0, -direction metric): the first
   counts the second as long as itself. */
static void on_blocks(train_ctx *t, const ro_sgns_ro_progress *p)
{
    double tn = now(), per = -1, left, run;
    char eta[32], reta[32];
    if (p->sweep != t->sweep || p->iteration != t->sweep_it) {
        t->sweep = p->sweep;
        t->sweep_it = p->iteration;
        t->sweep_t0 = tn;
        t->sweep_b0 = p->blocks_done;
    }
    if (p->blocks_done > t->sweep_b0)
        per = (tn - t->sweep_t0) / (double)(p->blocks_done - t->sweep_b0);
    left = per * (double)(p->blocks_total - p->blocks_done);
    if (per >= 0 && (!t->o->fuse || !strcmp(t->o->direction, "metric")) && p->sweep == 1)
        left += per * (double)p->blocks_total; /* two sweeps a step */
    { /* the run: this step's rest, the steps after it (at their pace so far, or
         the estimate's) and the stages after the steps */
        const uint64_t done = p->iteration > t->first ? p->iteration - t->first : 0;
        const uint64_t after = p->sweep == 0 ? t->last - t->first
                               : t->last > p->iteration + 1 ? t->last - p->iteration - 1 : 0;
        const double step = done ? t->step_secs / (double)done : t->step_est;
        run = per >= 0 ? left + (double)after * step + t->c->later : -1;
    }
    if (p->sweep == 0)
        status(t->c, 0, "start: sweep, block %llu of %llu  ETA %s, the run %s",
               (unsigned long long)p->blocks_done, (unsigned long long)p->blocks_total,
               fmt_secs(per >= 0 ? left : -1, eta, sizeof eta), fmt_secs(run, reta, sizeof reta));
    else
        status(t->c, 0, "iter %3llu/%llu: sweep %d, block %llu of %llu  %.1f s  step ETA %s, the run %s",
               (unsigned long long)p->iteration + 1, (unsigned long long)t->last, p->sweep,
               (unsigned long long)p->blocks_done, (unsigned long long)p->blocks_total,
               p->seconds, fmt_secs(per >= 0 ? left : -1, eta, sizeof eta),
               fmt_secs(run, reta, sizeof reta));
}

static int on_step(const ro_sgns_ro_progress *p, const ro_sgns_factors *x, void *user)
{
    train_ctx *t = (train_ctx *)user;
    double score[CLI_MAX_SETS + 1], mean = NAN, te = now();
    char line[1024], eta[32];
    uint64_t done = p->iteration - t->first, left = t->last - p->iteration;
    if (p->within_step) {
        on_blocks(t, p);
        return 0;
    }
    if (score_point(t, x, score, &mean)) return t->failed = 1;
    /* the run's ETA from the steps' own times and their scoring (not the
       sweep at the start, before step 1) */
    t->step_secs += p->seconds + (now() - te);
    score_line(t, score, mean, line, sizeof line);
    if (!t->c->quiet) {
        /* |dX| comes from the factors, |S'|^2 + |S|^2 - 2 <S', U'^T U S V^T V'>: below
           about sqrt(8 eps) |S|_F it is rounding (a small step from a large point, as
           after a resume with a smaller -eta or -direction plain): its bound, not 0 */
        double s2 = 0, res;
        char dx[64];
        size_t i;
        for (i = 0; i < x->d * x->d; ++i) s2 += (double)x->S[i] * x->S[i];
        res = sqrt(8 * (sizeof(ro_sgns_real) < sizeof(double) ? FLT_EPSILON : DBL_EPSILON) * s2);
        /* |dX| / step is the direction's part in the tangent space, |P_T(D)|, to
           first order in the step (the header's ro_sgns_ro_progress): against the
           run's first step, the other measure of convergence beside F's gain */
        if (p->step_norm < res) {
            snprintf(dx, sizeof dx, "<%.2g", res);
        } else if (p->step > 0) {
            double tn = p->step_norm / p->step;
            if (t->tangent0 == 0) t->tangent0 = tn;
            snprintf(dx, sizeof dx, "%.4g (|dX|/step: %.3g x the first)", p->step_norm, tn / t->tangent0);
        } else {
            snprintf(dx, sizeof dx, "%.4g", p->step_norm);
        }
        char gn[96] = "";
        if (t->o->grad_norm) { /* the exact measure: 0 only at a critical point of F */
            double g;
            ro_sgns_error err2;
            if (ro_sgns_tangent_norm(t->prob, x, RO_SGNS_DIRECTION_PLAIN, &g, &err2) != RO_SGNS_OK) {
                snprintf(t->failure, sizeof t->failure, "-grad-norm after step %llu: %s",
                         (unsigned long long)p->iteration, err2.message);
                return t->failed = 1;
            }
            snprintf(gn, sizeof gn, "  |P_T(grad F)| %.4g (%.3g x the start's)", g,
                     t->grad0 > 0 ? g / t->grad0 : NAN);
        }
        end_line(t->c);
        /* F's relative gain: how far from converged the step is */
        double rest = done ? t->step_secs / (double)done * (double)left : -1;
        char reta[32];
        fprintf(stderr, "iter %3llu/%llu  F %.5f e9 (%+.2f%%)  step %.3g%s  |dX| %s%s  %.1f s  ETA %s, the run %s%s\n",
                (unsigned long long)p->iteration, (unsigned long long)t->last, p->objective * 1e-9,
                p->objective_prev != 0 ? 100 * (p->objective - p->objective_prev) / fabs(p->objective_prev) : 0.0,
                p->step, p->halvings ? " (halved)" : "", dx, gn, p->seconds,
                fmt_secs(rest, eta, sizeof eta), fmt_secs(rest >= 0 ? rest + t->c->later : -1, reta, sizeof reta),
                line);
    }
    if (curve_row(t, p->iteration, p->objective, p->seconds, score, mean)) return t->failed = 1;
    keep_if_best(t, x, mean);
    if (p->objective_prev != 0 && t->o->min_gain > 0) {
        t->last_gain = 100 * (p->objective - p->objective_prev) / fabs(p->objective_prev);
        if (t->last_gain < t->o->min_gain) t->converged = 1; /* stops after the checkpoint below */
    }
    if (t->o->checkpoint) { /* the stop decision in it: a resume takes no step more */
        ro_sgns_run_record run;
        char when[64];
        memset(&run, 0, sizeof run);
        run.stage = t->converged ? RO_SGNS_RUN_DONE : RO_SGNS_RUN_STEPS;
        run.last_gain = t->last_gain;
        run.fingerprint = t->fingerprint;
        run.d = x->d;
        if (t->W0) {
            run.rows = t->cn->n;
            run.W = (ro_sgns_real *)t->W0;
            run.C = (ro_sgns_real *)t->C0;
        }
        snprintf(when, sizeof when, "after step %llu", (unsigned long long)p->iteration);
        if (save_checkpoint(t->o, x, t->have_best ? t->best : NULL, t->best_mean, &run, when,
                            t->failure, sizeof t->failure))
            return t->failed = 1;
        kill_point("step");
    }
    return t->converged;
}

/* SGD's progress as word2vec prints it */
static int on_sgd(const ro_sgns_sgd_progress *p, void *user)
{
    cli *c = (cli *)user;
    double frac = p->words_total ? (double)p->words / (double)p->words_total : 0;
    char eta[32];
    double left = frac > 0 ? p->seconds * (1 - frac) / frac : -1;
    char run[32];
    status(c, 0, "sgd: alpha %.6f  progress %5.1f%%  words/thread/sec %.1fk  ETA %s, the run %s",
           p->alpha, 100 * frac, p->words_per_sec / (p->threads > 0 ? p->threads : 1) / 1e3,
           fmt_secs(left, eta, sizeof eta), fmt_secs(left >= 0 ? left + c->later : -1, run, sizeof run));
    return 0;
}

/* -init-share F of the tokens SGD trains on (those in the vocabulary)
   must be a token at least: the library refuses less (RO_SGNS_ERR_EMPTY),
   and here it is said before the start, with the flag. */
static void check_share(cli *c, double share, const ro_sgns_counts *cn)
{
    uint64_t tokens = 0;
    size_t i;
    for (i = 0; i < cn->n; ++i) tokens += cn->vocab.count[i];
    if (share * (double)tokens < 1)
        die(c, "-init-share %g: that share of the %llu tokens in the vocabulary is less than one "
               "token, so the SGD start would train on no text; give %.2g or more",
            share, (unsigned long long)tokens, tokens ? 1 / (double)tokens : 1.0);
}

/* The SGD start's -checkpoint: its state every CLI_SGD_SAVE_SECONDS (each
   round under the kill hook), a stage 1 run record with no point. */
typedef struct sgd_saver {
    const opts *o;
    uint64_t fingerprint;
    size_t n, d;
    int failed;
    char failure[RO_SGNS_MESSAGE_SIZE + 256];
} sgd_saver;

#define CLI_SGD_SAVE_SECONDS 60.0

static int on_sgd_state(const ro_sgns_sgd_state *st, void *user)
{
    cli *c = (cli *)user;
    sgd_saver *s = c->sgd_saver;
    ro_sgns_run_record run;
    char when[96];
    memset(&run, 0, sizeof run);
    run.stage = RO_SGNS_RUN_SGD;
    run.fingerprint = s->fingerprint;
    run.round = st->round;
    run.words = st->words;
    run.rows = s->n;
    run.d = s->d;
    run.W = (ro_sgns_real *)st->W;
    run.C = (ro_sgns_real *)st->C;
    snprintf(when, sizeof when, "in the SGD start (round %llu of %llu)",
             (unsigned long long)st->round, (unsigned long long)st->rounds_total);
    if (save_checkpoint(s->o, NULL, NULL, 0, &run, when, s->failure, sizeof s->failure))
        return s->failed = 1;
    kill_point("sgd");
    return 0;
}

/* word2vec's SGD on the text: W and C, n x d; init: the -init sgd start
   (-iter, -init-share, -init-sample; its state checkpointed with
   -checkpoint and virtual workers), else -method sgd; from: a stage 1
   checkpoint's record to continue, or NULL */
static void run_sgd(cli *c, const opts *o, const ro_sgns_counts *cn, const char *text, size_t size,
                    int init, const ro_sgns_run_record *from, ro_sgns_real **W, ro_sgns_real **C)
{
    ro_sgns_sgd_config sc = ro_sgns_sgd_config_default();
    ro_sgns_error err;
    ro_sgns_result rc;
    double t0 = now();
    size_t d = (size_t)o->size;
    const int epochs = (int)o->iter;
    const double share = init ? o->init_share : 1, sample = init ? o->init_sample : o->sample;
    sgd_saver saver;
    if ((double)(int)o->negative != o->negative)
        die(c, "-negative %g: SGD draws a whole number of negatives", o->negative);
    *W = (ro_sgns_real *)alloc_array(c, cn->n, d * sizeof(ro_sgns_real));
    *C = (ro_sgns_real *)alloc_array(c, cn->n, d * sizeof(ro_sgns_real));
    sc.size = (int)d;
    sc.window = (int)o->window;
    sc.negative = (int)o->negative;
    sc.epochs = epochs;
    sc.share = share;
    sc.alpha = o->alpha;
    sc.sample = sample;
    sc.seed = (uint64_t)o->seed;
    sc.threads = (int)o->threads;
    sc.workers = (int)o->virtual_workers;
    sc.callback = on_sgd;
    sc.user = c;
    memset(&saver, 0, sizeof saver);
    if (init && o->checkpoint && sc.workers >= 1) { /* Hogwild's state cannot be resumed */
        saver.o = o;
        saver.fingerprint = ro_sgns_counts_fingerprint(cn);
        saver.n = cn->n;
        saver.d = d;
        c->sgd_saver = &saver;
        sc.save = on_sgd_state;
        sc.save_seconds = getenv("RO_SGNS_CLI_KILL_AT") ? 0 : CLI_SGD_SAVE_SECONDS;
    }
    if (from) { /* a stage 1 checkpoint: its W, C and round */
        sc.start_w = from->W;
        sc.start_c = from->C;
        sc.start_round = from->round;
        note(c, "sgd: resuming at round %llu (%llu words done)", (unsigned long long)from->round,
             (unsigned long long)from->words);
    }
    note(c, "sgd: d = %lu, window %d, negative %d, %d epoch(s) over %g of the text, alpha %g, "
            "sample %g, %s %d",
         (unsigned long)d, sc.window, sc.negative, epochs, share, sc.alpha, sc.sample,
         sc.workers ? "virtual workers" : "Hogwild, threads", sc.workers ? sc.workers : sc.threads);
    stage_start(c);
    if (text) {
        rc = ro_sgns_sgd_train_memory(text, size, &cn->vocab, &sc, *W, *C, NULL, &err);
        if (saver.failed) die(c, "%s", saver.failure);
        if (rc != RO_SGNS_OK) die_lib(c, display(o->train), &err);
    } else {
        reader r;
        reader_open(c, &r, "train", o->train, "sgd: reading");
        rc = ro_sgns_sgd_train_callback(reader_read, &r, &cn->vocab, &sc, *W, *C, NULL, &err);
        if (saver.failed) die(c, "%s", saver.failure);
        if (rc != RO_SGNS_OK) {
            end_line(c);
            die_read(c, &r, &err);
        }
        close_read(c, r.f);
    }
    c->sgd_saver = NULL;
    end_line(c);
    {
        char rss[64];
        char e1[32];
        note(c, "sgd: %.1f s (estimated %s)%s", now() - t0, fmt_est(c->stage_est, e1, sizeof e1),
             rss_note(rss, sizeof rss));
    }
}

/* v's rows in the order of the n words (n x d; a word not in v: a zero row) */
static ro_sgns_real *rows_by_words(cli *c, const ro_sgns_vectors *v, char *const *words, size_t n,
                                   size_t *found)
{
    ro_sgns_real *M = (ro_sgns_real *)alloc_array(c, n, v->d * sizeof(ro_sgns_real));
    size_t i, row;
    *found = 0;
    for (i = 0; i < n; ++i) {
        if (ro_sgns_vectors_find(v, words[i], &row)) {
            memcpy(M + i * v->d, v->data + row * v->d, v->d * sizeof(ro_sgns_real));
            ++*found;
        } else {
            memset(M + i * v->d, 0, v->d * sizeof(ro_sgns_real));
        }
    }
    return M;
}

/* W (rows in the counts' word order) from a vectors file; missing words 0 */
static ro_sgns_real *aligned_matrix(cli *c, const ro_sgns_vectors *v, const ro_sgns_counts *cn,
                                    size_t *found)
{
    return rows_by_words(c, v, cn->vocab.word, cn->n, found);
}

/* W or C of -init FILE, n x d, with its coverage checked */
static ro_sgns_real *init_matrix(cli *c, const opts *o, const char *flag, const char *path,
                                 const ro_sgns_counts *cn)
{
    ro_sgns_vectors *v = load_vectors(c, o, flag, path);
    size_t found;
    ro_sgns_real *M;
    if (v->d != (size_t)o->size)
        die(c, "-%s %s has dimension %lu, -size is %lld", flag, path, (unsigned long)v->d, o->size);
    M = aligned_matrix(c, v, cn, &found);
    if ((double)found < o->init_coverage * (double)cn->n || found == 0)
        die(c, "-%s %s has vectors for %lu of the %lu words (%.1f%%), less than -init-coverage %g; the "
               "others would start at zero",
            flag, path, (unsigned long)found, (unsigned long)cn->n, 100.0 * (double)found / (double)cn->n,
            o->init_coverage);
    if (found < cn->n)
        note(c, "init: %s has vectors for %lu of %lu words; the other %lu start at zero", path,
             (unsigned long)found, (unsigned long)cn->n, (unsigned long)(cn->n - found));
    release(c, v);
    return M;
}

/* The SGNS problem with k negatives and context distribution smoothing
   cds (1 = the paper's objective) */
static ro_sgns_problem *make_problem(cli *c, const ro_sgns_counts *cn, double k, double cds)
{
    ro_sgns_problem *p = NULL;
    ro_sgns_error err;
    if (ro_sgns_problem_create(cn, k, cds, &p, NULL, &err) != RO_SGNS_OK) die(c, "%s", err.message);
    return (ro_sgns_problem *)own(c, p, free_problem);
}

static int on_svd(const ro_sgns_tsvd_progress *p, void *user)
{
    cli *c = (cli *)user;
    const double left = p->done ? p->seconds / (double)p->done * (double)(p->total - p->done) : -1;
    char eta[32], run[32];
    status(c, p->done == p->total, "SVD-SPPMI: %s %lu of %lu  %.1f s  ETA %s, the run %s",
           p->done == p->total ? "done," : "block", (unsigned long)p->done, (unsigned long)p->total,
           p->seconds, fmt_secs(left, eta, sizeof eta),
           fmt_secs(left >= 0 ? left + c->later : -1, run, sizeof run));
    return 0;
}

static ro_sgns_factors *svd_start(cli *c, const opts *o, const ro_sgns_counts *cn, size_t nh)
{
    ro_sgns_csr *A = NULL, *Ah = NULL;
    ro_sgns_factors *x = NULL;
    ro_sgns_tsvd_config tc = ro_sgns_tsvd_config_default();
    ro_sgns_error err;
    tc.power_iters = (int)o->power_iters;
    tc.oversample = (size_t)o->oversample;
    tc.block = (size_t)o->block;
    tc.seed = (uint64_t)o->seed;
    tc.callback = on_svd;
    tc.user = c;
    if (strcmp(o->svd, "subspace") == 0) tc.method = RO_SGNS_TSVD_SUBSPACE;
    else if (strcmp(o->svd, "krylov") == 0) tc.method = RO_SGNS_TSVD_KRYLOV;
    else die(c, "-svd %s: expected krylov or subspace", o->svd);
    note(c, "SVD-SPPMI: k = %g, cds = %g, d = %lld, %s ...", o->negative, o->cds, o->size, o->svd);
    if (ro_sgns_sppmi(cn, o->negative, o->cds, &A, NULL, &err) != RO_SGNS_OK) die(c, "%s", err.message);
    own(c, A, free_csr);
    if (nh < cn->n) { /* -head: the SPPMI's head block */
        if (ro_sgns_csr_head(A, nh, nh, &Ah, NULL, &err) != RO_SGNS_OK) die(c, "%s", err.message);
        release(c, A);
        A = (ro_sgns_csr *)own(c, Ah, free_csr);
    }
    stage_start(c);
    if (ro_sgns_tsvd(A, (size_t)o->size, &tc, &x, NULL, &err) != RO_SGNS_OK) die(c, "%s", err.message);
    end_line(c);
    own(c, x, free_factors);
    release(c, A);
    return x;
}

static ro_sgns_embedding_kind embed_kind(cli *c, const char *e)
{
    if (strcmp(e, "w") == 0) return RO_SGNS_EMBED_W;
    if (strcmp(e, "c") == 0) return RO_SGNS_EMBED_C;
    if (strcmp(e, "w+c") == 0) return RO_SGNS_EMBED_W_PLUS_C;
    die(c, "-embed %s: expected w, c or w+c", e);
    return RO_SGNS_EMBED_W;
}

/* write the point's embeddings: -output by -embed, -output-contexts C */
static void write_point(cli *c, const opts *o, const ro_sgns_factors *x, const ro_sgns_counts *cn,
                        ro_sgns_embedding_kind kind)
{
    ro_sgns_real *M = NULL;
    ro_sgns_error err;
    c->stage = 1; /* -output and -output-contexts are renamed when both are written */
    if (kind == RO_SGNS_EMBED_W_PLUS_C && x->n != x->m)
        die(c, "-embed w+c needs the same vocabulary for words and contexts; this point has %lu "
               "words and %lu contexts",
            (unsigned long)x->n, (unsigned long)x->m);
    if (o->eig != 0.5 || kind != RO_SGNS_EMBED_W) {
        /* a diverged point can hide in W = U P (eig 0, orthonormal columns):
           the bound holds for the paper's W = U P Sigma^0.5, whatever is written */
        if (point_matrix(x, 0.5, RO_SGNS_EMBED_W, &M, &err) != RO_SGNS_OK) die(c, "%s", err.message);
        own(c, M, free_mem);
        check_values(c, "output", M, x->n, x->d);
        release(c, M);
    }
    /* -output-contexts written first and renamed first (commit_outputs) */
    if (o->output_ctx) {
        if (point_matrix(x, o->eig, RO_SGNS_EMBED_C, &M, &err) != RO_SGNS_OK) die(c, "%s", err.message);
        own(c, M, free_mem);
        write_vectors(c, o, "output-contexts", o->output_ctx, cn, M, x->d);
        release(c, M);
    }
    if (point_matrix(x, o->eig, kind, &M, &err) != RO_SGNS_OK) die(c, "%s", err.message);
    own(c, M, free_mem);
    write_vectors(c, o, "output", o->output, cn, M, x->d);
    release(c, M);
    kill_point("save");
    commit_outputs(c);
}

/* A resumed run's -curve: the rows after the checkpoint's step it (written
   before a kill that left the checkpoint one step behind) cut away, so no
   step has two rows. 1 when a row for step it remains; a curve that is not
   a regular file is left alone. */
static int curve_cut(cli *c, FILE *curve, const char *path, uint64_t it)
{
    struct stat st;
    FILE *in;
    char line[4096];
    long off = 0, cut = -1;
    int have = 0;
    if (fstat(fileno(curve), &st) != 0 || !S_ISREG(st.st_mode)) return 1;
    in = fopen(path, "rb");
    if (!in) die(c, "-curve: cannot read '%s': %s", path, strerror(errno));
    while (fgets(line, sizeof line, in)) {
        size_t len = strlen(line);
        char *end;
        unsigned long long row = strtoull(line, &end, 10);
        if (end != line && *end == ',') { /* a row (the header is no number) */
            if (row > it) {
                cut = off;
                break;
            }
            if (row == it) have = 1;
        }
        off += (long)len;
    }
    fclose(in);
    if (cut >= 0 && (fflush(curve) != 0 || ftruncate(fileno(curve), (off_t)cut) != 0))
        die(c, "-curve: cannot cut '%s' back to step %llu: %s", path, (unsigned long long)it,
            strerror(errno));
    return have;
}

/* ============================================ the cost before the work */



static int cli_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* What a run of n words, nnz pairs at dimension d holds at most from the
   counts on: the library's training estimate (for two threads), each
   thread beyond two's block of D and GEMM buffers, -keep-best's second
   point and the vectors written at the end. */
static double run_bytes(size_t n, uint64_t nnz, size_t d, int keep_best)
{
    const double R = sizeof(ro_sgns_real), nt = cli_threads();
    double b = (double)ro_sgns_estimate_memory(n, nnz, d, 0, 0).training;
    double g = 256.0 * (double)(n < 4096 ? n : 4096) + 147456.0;
    if (nt > 2) b += (nt - 2) * (288.0 * (double)n + g) * R;
    if (keep_best) b += (2.0 * (double)n * (double)d + (double)d * (double)d) * R;
    return b + 2.0 * (double)n * (double)d * R;
}

/* The address space the process maps now (Linux: /proc/self/statm), 0
   where unknown: RLIMIT_AS counts it with what the run will add. */
static double mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    long page = sysconf(_SC_PAGESIZE);
    if (!f) return 0;
    if (fscanf(f, "%lu", &pages) != 1) pages = 0;
    fclose(f);
    return page > 0 ? (double)pages * (double)page : 0;
}

/* The memory a run may use: physical memory, RLIMIT_AS (less what is
   mapped already but for counts_bytes, the counts, which the run's figure has),
   -memory, the smallest; *what names it. 0: no limit known. */
static double memory_limit(const opts *o, double counts_bytes, const char **what)
{
    double lim = 0;
    struct rlimit rl;
    *what = "";
#ifdef _SC_PHYS_PAGES
    {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0) {
            lim = (double)pages * (double)page;
            *what = "the physical memory";
        }
    }
#endif
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        double as = (double)rl.rlim_cur - mapped_bytes() + counts_bytes;
        if (as < 1) as = 1;
        if (lim == 0 || as < lim) {
            lim = as;
            *what = "RLIMIT_AS (ulimit -v, less what is mapped already)";
        }
    }
    if (o->memory && (lim == 0 || (double)o->memory < lim)) {
        lim = (double)o->memory;
        *what = "-memory";
    }
    return lim;
}

/* Before counting: what the corpus's size says (little: a token is at
   least one byte and a separator) and when the real estimate comes. */
static void cost_before_counting(cli *c, const opts *o)
{
    struct stat st;
    char b1[32];
    if (c->quiet || !o->train || is_stdio(o->train) || stat(o->train, &st) != 0 ||
        !S_ISREG(st.st_mode))
        return;
    note(c,
         "estimate: %s is %s: at most %.0fM tokens; counting holds the text as 2-4 bytes a "
         "token; the memory and time of the run are estimated once the vocabulary is known "
         "(after counting), before the start",
         display(o->train), fmt_bytes((double)st.st_size, b1, sizeof b1),
         ceil((double)st.st_size / 2e6));
}

/* nnz of the counts restricted to their first k words (the vocabulary
   -max-vocab k or a higher -min-count keeps: ids are by frequency), for
   every k: pref[k], k = 0..n. */
static uint64_t *prefix_nnz(cli *c, const ro_sgns_counts *cn)
{
    uint64_t *pref = (uint64_t *)alloc_array(c, cn->n + 1, sizeof *pref);
    size_t w, k;
    uint64_t j;
    memset(pref, 0, (cn->n + 1) * sizeof *pref);
    for (w = 0; w < cn->n; ++w)
        for (j = cn->row_ptr[w]; j < cn->row_ptr[w + 1]; ++j)
            ++pref[(cn->col[j] > w ? cn->col[j] : w) + 1];
    for (k = 1; k <= cn->n; ++k) pref[k] += pref[k - 1];
    return pref;
}

/* what the process holds besides the run: the program, the C library,
   OpenMP's threads (their stacks as used); in the printed estimate, not
   against -memory */
#define CLI_BASE_BYTES 8e6

/* The whole run's estimate, stage by stage: seconds (< 0: not estimated,
   0: no such stage) and the most bytes each stage holds. */
typedef struct run_est {
    double sgd, svd, steps, fold, write, total; /* total: the known stages' sum */
    double b_sgd, b_ro, b_fold, need;          /* need: the largest, from the counts on */
    int unknown;                               /* a stage has no estimate */
} run_est;

typedef struct cost_fit {
    const opts *o;
    const ro_sgns_counts *cn;
    const uint64_t *pref;
    double mem_limit, step_limit, run_limit, rate, text_bytes;
    int keep_best, is_ro, is_sgd, init_sgd, svd, fold_w0;
    size_t nh, d0;        /* the head at n (n: no fold); the d of the measurements */
    double t0, elapsed;   /* the run's start; its seconds up to the estimate (counting,
                             the measurements), in the total */
    double sgd_rate;      /* SGD's training words a second, measured now (0: not) */
    double read_secs;     /* SGD's reading of the text (counting's, measured) */
    double fold_a, fold_b; /* a folded row's seconds at d0: a + b x the head's size */
} cost_fit;

/* the counts of n words, nnz pairs and the problem made of them (its
   rows are the counts'; it adds their transpose and the rows' sums) */
static double counts_size(size_t n, uint64_t nnz)
{
    return (double)ro_sgns_estimate_memory(n, nnz, 1, 0, 0).counts;
}
static double problem_bytes(size_t n, uint64_t nnz)
{
    return 8.0 * (double)nnz + 48.0 * (double)n;
}

/* The run at n words (the first n of the counts) and dimension d: each
   stage's seconds, from the rates measured now at d0 (SGD's words a
   second, the step's operations a second, the fold's row), and each
   stage's memory (from the allocations in the header: run_bytes for the
   steps; W and C, the workers' copies and the id stream for SGD; the
   whole problem, the start's rows and the fold's factors for the fold). */
static void run_cost(const cost_fit *f, size_t n, size_t d, run_est *e)
{
    const opts *o = f->o;
    const double R = sizeof(ro_sgns_real), nd = (double)n * (double)d;
    const double dd = (double)d / (double)f->d0, ld = (double)((d + 15) / 16 * 16);
    const size_t nh = f->nh < n ? f->nh : n;
    const uint64_t nnz = f->pref[n], nnz_h = f->pref[nh];
    const double K = (double)o->virtual_workers, cnt = counts_size(n, nnz);
    double tok = 0, secs = 0;
    size_t i;
    memset(e, 0, sizeof *e);
    for (i = 0; i < n; ++i) tok += (double)f->cn->vocab.count[i];
    if (f->is_sgd || f->init_sgd) {
        const double epochs = (double)o->iter;
        const double share = f->is_sgd ? 1 : o->init_share;
        e->sgd = f->sgd_rate > 0 ? f->read_secs + tok * epochs * share / f->sgd_rate * dd : -1;
        e->b_sgd = cnt + f->text_bytes + 2 * nd * R + 2 * (double)n * ld * R + 40 * (double)n +
                   4 * tok + 262144;
        if (K > 1) e->b_sgd += 2 * K * (double)n * ld * R + 10 * K * (double)n + 10 * (double)n;
    }
    if (f->is_ro || f->svd) {
        const double nhd = (double)nh;
        e->b_ro = run_bytes(nh, nnz_h, d, f->keep_best);
        if (nh < n) e->b_ro += cnt + problem_bytes(n, nnz) + (f->fold_w0 ? 2 * nd * R : 0);
        if (f->svd) { /* Krylov's l = 3d: the SPPMI's products, Q's blocks, H's eigenvectors
                         (weights measured on the sample corpus, bench/RESULTS.md) */
            const double l = 3.0 * (double)d < nhd ? 3.0 * (double)d : nhd;
            e->svd = (40.0 * (double)nnz_h * l + 40.0 * nhd * l * l + 400.0 * l * l * l) / f->rate;
        }
        if (f->is_ro && o->steps > 0) { /* the steps and F at the start (a sweep) */
            double rate = f->rate;
            if (ro_sgns_estimate_step_seconds(nh, nh, d, &rate, &secs, NULL, NULL) != RO_SGNS_OK)
                secs = 0;
            e->steps = secs * ((double)o->steps + 0.6);
        }
        if (nh < n) { /* the fold: each tail row against the head, both sides; then a QR */
            const double rows = 2.0 * (double)(n - nh);
            /* and the fixed part: G and the start's projection over the head
               (scalar, in double), the QR of both factors */
            e->fold = f->fold_a > 0 || f->fold_b > 0
                          ? rows * (f->fold_a * dd * dd + f->fold_b * nhd * dd) +
                                (32.0 * nd * (double)d + 100.0 * nhd * (double)d * (double)d) / f->rate
                          : -1;
            /* ro_sgns_fold_in's L, R, W0 and Z0, then the factors made of them
               (about 7 n d reals), and its blocks (H, and X, P, E, Dl) */
            e->b_fold = cnt + problem_bytes(n, nnz) + (f->fold_w0 ? 2 * nd * R : 0) +
                        2 * nhd * (double)d * R + 7 * nd * R + 1024 * nhd * R +
                        256.0 * (double)d * (double)d * 8;
        }
    }
    /* the vectors written, as text, at about 100 MB a second */
    e->write = (double)n * (12.0 + 11.0 * (double)d) * (o->output_ctx ? 2 : 1) / 1e8;
    e->need = e->b_sgd > e->b_ro ? e->b_sgd : e->b_ro;
    if (e->b_fold > e->need) e->need = e->b_fold;
    e->unknown = e->sgd < 0 || e->fold < 0;
    e->total = (e->sgd > 0 ? e->sgd : 0) + e->svd + e->steps + (e->fold > 0 ? e->fold : 0) + e->write;
}

/* does a run of the first n words at dimension d fit the limits? */
static int fits(const cost_fit *f, size_t n, size_t d)
{
    run_est e;
    double secs = 0, rate = f->rate;
    if (d > n || d == 0) return 0;
    run_cost(f, n, d, &e);
    if (f->mem_limit > 0 && e.need > f->mem_limit) return 0;
    if (f->run_limit > 0 && e.total + f->elapsed > f->run_limit) return 0;
    if (f->is_ro && f->o->steps > 0 && f->step_limit > 0 &&
        (ro_sgns_estimate_step_seconds(f->nh < n ? f->nh : n, f->nh < n ? f->nh : n, d, &rate, &secs,
                                       NULL, NULL) != RO_SGNS_OK ||
         secs > f->step_limit))
        return 0;
    return 1;
}

/* The SGD start's rate, measured now: SGD as the run sets it (d, window,
   negative, sample, workers, threads), one epoch over the text's first
   few MB (whole tokens); its training words a second (0: not measured,
   as for a pipe). Reading is timed apart, as counting read the text. */
static int sgd_probe_cb(const ro_sgns_sgd_progress *p, void *user)
{
    double *got = (double *)user;
    got[0] = (double)p->words;
    got[1] = p->seconds;
    return 0;
}

static double sgd_probe(cli *c, const opts *o, const ro_sgns_counts *cn, const char *text,
                        size_t size, double sample)
{
    ro_sgns_sgd_config sc = ro_sgns_sgd_config_default();
    ro_sgns_real *W, *C;
    ro_sgns_error err;
    char *buf = NULL;
    size_t len = 0, want;
    double got[2] = {0, 0};
    struct stat st;
    if (!text) {
        if (!o->train || is_stdio(o->train) || stat(o->train, &st) != 0 || !S_ISREG(st.st_mode))
            return 0;
        size = (size_t)st.st_size;
    }
    /* a 16th of the text, 1 to 8 MB; with K virtual workers two of their
       rounds (K x sync blocks each, about 6 bytes a token) when that is more */
    want = size / 16 > (8u << 20) ? (8u << 20) : size / 16 < (1u << 20) ? (1u << 20) : size / 16;
    if (o->virtual_workers > 1) {
        const double round = 2.0 * (double)o->virtual_workers * (double)sc.sync * RO_SGNS_SGD_BLOCK * 6;
        if (round > (double)want) want = round > (double)(8u << 20) ? (8u << 20) : (size_t)round;
    }
    if (want > size) want = size;
    if (!text) {
        FILE *f = fopen(o->train, "rb");
        if (!f) return 0;
        buf = (char *)alloc_array(c, want + 1, 1);
        len = fread(buf, 1, want, f);
        fclose(f);
        text = buf;
    } else {
        len = want;
    }
    while (len < size && len > 0 && (unsigned char)text[len - 1] > ' ') --len; /* a whole token */
    W = (ro_sgns_real *)alloc_array(c, cn->n, (size_t)o->size * sizeof(ro_sgns_real));
    C = (ro_sgns_real *)alloc_array(c, cn->n, (size_t)o->size * sizeof(ro_sgns_real));
    sc.size = (int)o->size;
    sc.window = (int)o->window;
    sc.negative = (int)o->negative;
    sc.epochs = 1;
    sc.alpha = o->alpha;
    sc.sample = sample;
    sc.seed = (uint64_t)o->seed;
    sc.threads = (int)o->threads;
    sc.workers = (int)o->virtual_workers;
    sc.report_words = 0; /* once, at the end */
    sc.callback = sgd_probe_cb;
    sc.user = got;
    if (len == 0 || ro_sgns_sgd_train_memory(text, len, &cn->vocab, &sc, W, C, NULL, &err) != RO_SGNS_OK)
        got[0] = 0;
    release(c, W);
    release(c, C);
    if (buf) release(c, buf);
    return got[0] > 0 && got[1] > 0 ? got[0] / got[1] : 0;
}

/* The fold's row, measured now: the fold of a made-up problem whose tail
   rows hold `entries` counts each in a head of h lines, at the run's d,
   -fold-iter and start; the seconds a row of its second block of br rows
   (the first holds the fold's fixed costs), where the callback stops it.
   At two head sizes they give a + b h. 0 on failure. */
static int fold_probe_cb(const ro_sgns_fold_progress *p, void *user)
{
    double *t = (double *)user; /* the seconds at the first block's end, then the second's */
    t[t[0] < 0 ? 0 : 1] = p->seconds;
    return t[1] >= 0;
}

static double fold_probe_at(size_t d, size_t h, size_t br, double entries, const opts *o, int w0)
{
    const size_t T = 2 * br, n = h + T;
    size_t E = entries < 1 ? 1 : entries > (double)h ? h : (size_t)entries, stride, t, j, k, q;
    uint64_t *rp = (uint64_t *)calloc(n + 1, sizeof *rp);
    uint32_t *col = (uint32_t *)malloc((h + 2 * T * E) * sizeof *col);
    float *val = (float *)malloc((h + 2 * T * E) * sizeof *val);
    ro_sgns_real *W0 = (ro_sgns_real *)malloc(n * d * sizeof *W0);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x = NULL, *out = NULL;
    ro_sgns_fold_config fc = ro_sgns_fold_config_default();
    ro_sgns_fold_report rep;
    ro_sgns_rng rng;
    double secs = 0, at[2] = {-1, -1};
    stride = h / E;
    if (!rp || !col || !val || !W0) goto done;
    /* tail row t: head columns (7 t + q stride) mod h, q < E; the head rows
       mirror them, and each has its own diagonal count */
    for (j = 0, k = 0; j < h; ++j) {
        col[k] = (uint32_t)j;
        val[k++] = 4;
        for (t = 0; t < T; ++t) {
            const size_t off = (j + h - (7 * t) % h) % h;
            if (off % stride == 0 && off / stride < E) {
                col[k] = (uint32_t)(h + t);
                val[k++] = 1;
            }
        }
        rp[j + 1] = k;
    }
    for (t = 0; t < T; ++t) {
        size_t c0 = k;
        for (q = 0; q < E; ++q) col[k++] = (uint32_t)((7 * t + q * stride) % h);
        for (q = c0 + 1; q < k; ++q) { /* ascending */
            uint32_t v = col[q];
            size_t r = q;
            while (r > c0 && col[r - 1] > v) {
                col[r] = col[r - 1];
                --r;
            }
            col[r] = v;
        }
        for (q = c0; q < k; ++q) val[q] = 1;
        rp[h + t + 1] = k;
    }
    if (ro_sgns_problem_create_csr(n, n, rp, col, val, 5, 0.75, &p, NULL, NULL) != RO_SGNS_OK ||
        ro_sgns_factors_create(h, h, d, &x, NULL, NULL) != RO_SGNS_OK)
        goto done;
    ro_sgns_rng_seed(&rng, 7, 0);
    for (j = 0; j < h * d; ++j) {
        x->U[j] = (ro_sgns_real)(ro_sgns_rng_normal(&rng) / sqrt((double)h));
        x->V[j] = (ro_sgns_real)(ro_sgns_rng_normal(&rng) / sqrt((double)h));
    }
    for (j = 0; j < d; ++j) x->S[j * d + j] = 1;
    for (j = 0; j < n * d; ++j) W0[j] = (ro_sgns_real)(0.1 * ro_sgns_rng_normal(&rng));
    fc.iterations = (int)o->fold_iter;
    fc.block_rows = br;
    fc.callback = fold_probe_cb;
    fc.user = at;
    if (w0) {
        fc.start_w = W0;
        fc.start_c = W0;
    }
    if (ro_sgns_fold_in(p, x, &fc, &out, &rep, NULL, NULL) == RO_SGNS_STOPPED && at[1] > at[0])
        secs = (at[1] - at[0]) / (double)br;
done:
    ro_sgns_factors_free(out);
    ro_sgns_factors_free(x);
    ro_sgns_problem_free(p);
    free(rp);
    free(col);
    free(val);
    free(W0);
    return secs;
}

static void fold_probe(cost_fit *f, double entries)
{
    const size_t d = (size_t)f->o->size, h1 = d + 256 < f->nh ? d + 256 : f->nh;
    /* the second head as large as 8192 lines: a block's rows of X then
       leave the cache, as a large head's do */
    const size_t h2 = (4 * h1 > 8192 ? 4 * h1 : 8192) < f->nh ? (4 * h1 > 8192 ? 4 * h1 : 8192) : f->nh;
    /* blocks of fewer rows at a larger d: a row's Cholesky factor is d^3 / 3 */
    const size_t br = d <= 100 ? 256 : (size_t)(256.0 * 1e4 / ((double)d * (double)d)) + 16;
    double t1 = fold_probe_at(d, h1, br, entries, f->o, f->fold_w0), t2 = t1;
    f->fold_a = f->fold_b = 0;
    if (t1 <= 0) return;
    if (h2 > h1) t2 = fold_probe_at(d, h2, br, entries, f->o, f->fold_w0);
    if (t2 <= 0) return;
    f->fold_b = h2 > h1 && t2 > t1 ? (t2 - t1) / (double)(h2 - h1) : 0;
    f->fold_a = t1 - f->fold_b * (double)h1;
    if (f->fold_a < 0) {
        f->fold_a = 0;
        f->fold_b = t1 / (double)h1;
    }
}

/* What to change, into msg: the largest vocabulary (-max-vocab, and the
   -min-count that keeps no more) and the largest -size that fit. */
static void cost_advice(const cost_fit *f, const ro_sgns_counts *cn, size_t d, int counting,
                        char *msg, size_t size)
{
    size_t lo = 0, hi = cn->n, len; /* the largest n' in [0, n] that fits: lo */
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (fits(f, mid, d)) lo = mid;
        else hi = mid - 1;
    }
    msg[0] = '\0';
    if (lo >= d && lo > 0) {
        if (counting)
            snprintf(msg, size, " -min-count %llu (keeps at most %lu words) or -max-vocab %lu;",
                     (unsigned long long)(cn->vocab.count[lo] + 1), (unsigned long)lo,
                     (unsigned long)lo);
        else
            snprintf(msg, size, " counts of at most %lu words (count again with -min-count %llu "
                     "or -max-vocab %lu);",
                     (unsigned long)lo, (unsigned long long)(cn->vocab.count[lo] + 1),
                     (unsigned long)lo);
    }
    len = strlen(msg);
    lo = 0;
    hi = d;
    while (lo < hi) { /* the largest d' <= d that fits */
        size_t mid = lo + (hi - lo + 1) / 2;
        if (fits(f, cn->n, mid)) lo = mid;
        else hi = mid - 1;
    }
    if (lo > 0 && len < size) snprintf(msg + len, size - len, " -size %lu;", (unsigned long)lo);
}

/* a stage of the estimate line: "name secs" (none when 0) */
static void est_part(char *out, size_t size, const char *name, double secs)
{
    size_t len = strlen(out);
    char t[32];
    if (secs == 0 || len >= size) return;
    snprintf(out + len, size - len, "%s%s %s", len ? ", " : "", name,
             secs < 0 ? "not estimated" : fmt_est(secs, t, sizeof t));
}


/* The measurements: the step's rate (RO, SVD), SGD's, the fold's row. */
static void cost_measure(cli *c, cost_fit *f, const char *text, size_t size, double sample)
{
    const ro_sgns_counts *cn = f->cn;
    double secs = 0;
    ro_sgns_error err;
    size_t w;
    if (f->is_ro || f->svd) {
        const size_t nh = f->nh, d = (size_t)f->o->size;
        if (ro_sgns_estimate_step_seconds(nh, nh, d, &f->rate, &secs, NULL, &err) != RO_SGNS_OK)
            die(c, "estimate: %s", err.message);
    }
    if ((f->is_sgd || f->init_sgd) && (!c->quiet || f->run_limit > 0))
        f->sgd_rate = sgd_probe(c, f->o, cn, text, size, sample);
    if (f->nh < cn->n && f->is_ro && (!c->quiet || f->run_limit > 0)) {
        double e = 0; /* the tail rows' counts in the head's columns, on average */
        uint64_t j;
        for (w = f->nh; w < cn->n; ++w)
            for (j = cn->row_ptr[w]; j < cn->row_ptr[w + 1] && cn->col[j] < f->nh; ++j) e += 1;
        fold_probe(f, e / (double)(cn->n - f->nh));
    }
}

/* Once the vocabulary is known, before the start: the estimate of the
   memory and time of each stage and of the whole run; past a limit, stop
   with what to change (unless -force). Fills *e; returns the step's
   seconds (0 when not estimated). */
static double check_cost(cli *c, const opts *o, const ro_sgns_counts *cn, const cost_fit *in,
                         int counting, const char *text, size_t size, run_est *e)
{
    const size_t n = cn->n, d = (size_t)o->size;
    const char *mem_what;
    char b1[32], b2[32], t1[32], t2[32], advice[512], why[768], head_note[64] = "", parts[512] = "";
    double secs = 0, counting_peak = (double)cn->peak_bytes + in->text_bytes, peak;
    cost_fit f = *in;
    uint64_t *pref;
    int over_mem, over_time, over_run;
    f.mem_limit = memory_limit(o, 8.0 * (double)cn->nnz + 24.0 * (double)n, &mem_what);
    f.step_limit = f.is_ro && o->steps > 0 ? o->max_step : 0;
    f.run_limit = o->max_seconds;
    f.rate = 0;
    f.d0 = d;
    pref = prefix_nnz(c, cn);
    f.pref = pref;
    /* the memory first: a run past it measures nothing that would need it */
    f.sgd_rate = f.fold_a = f.fold_b = 0;
    run_cost(&f, n, d, e);
    if (!(f.mem_limit > 0 && e->need > f.mem_limit) || o->force)
        cost_measure(c, &f, text, size, f.is_sgd ? o->sample : o->init_sample);
    f.elapsed = now() - f.t0;
    run_cost(&f, n, d, e);
    e->total += f.elapsed;
    if (f.is_ro && o->steps > 0)
        (void)ro_sgns_estimate_step_seconds(f.nh, f.nh, d, &f.rate, &secs, NULL, NULL);
    peak = (e->need > counting_peak ? e->need : counting_peak) + CLI_BASE_BYTES;
    if (f.nh < n) snprintf(head_note, sizeof head_note, " (RO on the first %lu)", (unsigned long)f.nh);
    if (f.is_ro && o->steps > 0)
        note(c, "estimate: %lu words%s, %llu pairs, d = %lu: memory %s (the limit: %s, %s); a step "
                "%s, %lld steps %s (%.1f GFLOP/s measured now, %d threads)",
             (unsigned long)n, head_note, (unsigned long long)cn->nnz, (unsigned long)d,
             fmt_bytes(peak, b1, sizeof b1), f.mem_limit > 0 ? fmt_bytes(f.mem_limit, b2, sizeof b2) : "none",
             f.mem_limit > 0 ? mem_what : "unknown", fmt_est(secs, t1, sizeof t1), o->steps,
             fmt_est(secs * (double)o->steps, t2, sizeof t2), f.rate / 1e9, cli_threads());
    else
        note(c, "estimate: %lu words%s, %llu pairs, d = %lu: memory %s (the limit: %s, %s)",
             (unsigned long)n, head_note, (unsigned long long)cn->nnz, (unsigned long)d,
             fmt_bytes(peak, b1, sizeof b1), f.mem_limit > 0 ? fmt_bytes(f.mem_limit, b2, sizeof b2) : "none",
             f.mem_limit > 0 ? mem_what : "unknown");
    est_part(parts, sizeof parts, "so far", f.elapsed);
    est_part(parts, sizeof parts, f.is_sgd ? "sgd" : "sgd start", e->sgd);
    est_part(parts, sizeof parts, f.is_ro ? "SVD start" : "SVD", e->svd);
    est_part(parts, sizeof parts, "RO steps", e->steps);
    est_part(parts, sizeof parts, "fold", e->fold);
    est_part(parts, sizeof parts, "write", e->write);
    {
        char m1[32] = "", m2[32] = "", m3[32] = "", mem[160] = "";
        snprintf(mem, sizeof mem, "%s%s%s%s%s%s%s%s%s", e->b_sgd > 0 ? "; memory: sgd " : "",
                 e->b_sgd > 0 ? fmt_bytes(e->b_sgd + CLI_BASE_BYTES, m1, sizeof m1) : "",
                 e->b_ro > 0 ? (e->b_sgd > 0 ? ", " : "; memory: ") : "",
                 e->b_ro > 0 ? (f.is_ro ? "RO " : "SVD ") : "",
                 e->b_ro > 0 ? fmt_bytes(e->b_ro + CLI_BASE_BYTES, m2, sizeof m2) : "",
                 e->b_fold > 0 ? ", fold " : "",
                 e->b_fold > 0 ? fmt_bytes(e->b_fold + CLI_BASE_BYTES, m3, sizeof m3) : "",
                 counting_peak > 0 ? ", counting " : "",
                 counting_peak > 0 ? fmt_bytes(counting_peak + CLI_BASE_BYTES, b2, sizeof b2) : "");
        note(c, "estimate: the run: %s; total %s%s (-max-seconds %s)%s", parts, e->unknown ? "at least " : "",
             fmt_est(e->total, t1, sizeof t1), o->max_seconds > 0 ? fmt_est(o->max_seconds, t2, sizeof t2) : "none",
             mem);
    }
    if (f.sgd_rate > 0)
        note(c, "estimate: SGD trains %.0fk words a second here (measured now, %d threads)",
             f.sgd_rate / 1e3, cli_threads());
    over_mem = f.mem_limit > 0 && e->need > f.mem_limit;
    over_time = f.step_limit > 0 && secs > f.step_limit;
    over_run = f.run_limit > 0 && e->total > f.run_limit;
    if (!over_mem && !over_time && !over_run) {
        release(c, pref);
        return secs;
    }
    why[0] = '\0';
    if (over_mem)
        snprintf(why, sizeof why, "the run needs about %s, more than %s allows (%s)",
                 fmt_bytes(e->need, b1, sizeof b1), mem_what, fmt_bytes(f.mem_limit, b2, sizeof b2));
    if (over_time) {
        size_t len = strlen(why);
        snprintf(why + len, sizeof why - len, "%sa step would take about %s, more than "
                 "-max-step-seconds %g", len ? ", and " : "", fmt_est(secs, t1, sizeof t1), o->max_step);
    }
    if (over_run) {
        size_t len = strlen(why);
        snprintf(why + len, sizeof why - len, "%sthe run would take about %s, more than "
                 "-max-seconds %g", len ? ", and " : "", fmt_est(e->total, t1, sizeof t1), o->max_seconds);
    }
    if (o->force) {
        note(c, "estimate: %s; -force: starting anyway", why);
        release(c, pref);
        return secs;
    }
    cost_advice(&f, cn, d, counting, advice, sizeof advice);
    release(c, pref);
    if (over_run) { /* or a limit that holds the run */
        size_t len = strlen(advice);
        snprintf(advice + len, sizeof advice - len, " -max-seconds %.0f;", ceil(e->total * 1.5) + 1);
    }
    if (over_mem && strcmp(mem_what, "-memory") == 0) { /* a budget that holds the run */
        double want = e->need > counting_peak ? e->need : counting_peak;
        size_t len = strlen(advice);
        snprintf(advice + len, sizeof advice - len, " -memory %.0fM;",
                 ceil(want / 1048576.0) + 1);
    }
    die(c, "%s. Change one of:%s or pass -force to start anyway", why,
        advice[0] ? advice : " nothing here fits (the counts alone are too large);");
    return secs;
}

/* -head: how many of the most frequent words (and contexts) RO trains;
   the rest are folded in after (ro_sgns_fold_in). By default the words
   seen CLI_HEAD_COUNT times or more, the paper's vocabulary (its min
   count, on enwik9), but never fewer than CLI_HEAD_MIN (a small
   vocabulary is trained whole); cn->n: no fold. */
#define CLI_HEAD_COUNT 200
#define CLI_HEAD_MIN 20000
static size_t head_size(cli *c, const opts *o, const ro_sgns_counts *cn)
{
    size_t nh = 0;
    if (o->head == 0 || (o->head > 0 && (unsigned long long)o->head >= cn->n)) return cn->n;
    if (o->head > 0) {
        if (o->head < o->size)
            die(c, "-head %lld is below -size %lld: the head must hold d words at least", o->head,
                o->size);
        return (size_t)o->head;
    }
    while (nh < cn->n && cn->vocab.count[nh] >= CLI_HEAD_COUNT) ++nh; /* counts fall */
    if (nh < CLI_HEAD_MIN) nh = cn->n < CLI_HEAD_MIN ? cn->n : CLI_HEAD_MIN;
    return nh;
}

/* the fold's progress by blocks: rows done, the fold's ETA and the run's */
static int on_fold(const ro_sgns_fold_progress *p, void *user)
{
    cli *c = (cli *)user;
    const double frac = p->rows_total ? (double)p->rows_done / (double)p->rows_total : 1;
    const double left = frac > 0 ? p->seconds * (1 - frac) / frac : -1;
    char eta[32], run[32];
    status(c, p->rows_done == p->rows_total, "fold: %lu of %lu rows  %.1f s  ETA %s, the run %s",
           (unsigned long)p->rows_done, (unsigned long)p->rows_total, p->seconds,
           fmt_secs(left, eta, sizeof eta), fmt_secs(left >= 0 ? left + c->later : -1, run, sizeof run));
    return 0;
}

/* -head: the head's point x extended to every word and context */
static ro_sgns_factors *fold_rest(cli *c, const opts *o, const ro_sgns_problem *whole, size_t n,
                                  const ro_sgns_factors *x, const ro_sgns_real *W0,
                                  const ro_sgns_real *C0, double estimate)
{
    ro_sgns_fold_config fc = ro_sgns_fold_config_default();
    ro_sgns_fold_report r;
    ro_sgns_factors *all = NULL;
    ro_sgns_error err;
    double t0 = now();
    fc.iterations = (int)o->fold_iter;
    char e1[32], rss[64];
    fc.start_w = W0;
    fc.start_c = C0;
    fc.prior = W0 ? o->fold_prior : 0;
    fc.callback = on_fold;
    fc.user = c;
    note(c, "fold: %lu words and %lu contexts, %d steps each from %s ...",
         (unsigned long)(n - x->n), (unsigned long)(n - x->m), fc.iterations,
         W0 ? "the start's rows" : "0");
    stage_start(c);
    if (ro_sgns_fold_in(whole, x, &fc, &all, &r, NULL, &err) != RO_SGNS_OK) die(c, "fold: %s", err.message);
    end_line(c);
    own(c, all, free_factors);
    note(c, "fold: %.1f s (estimated %s)%s; their f %.5g -> %.5g e9, |grad f| %.3g of the start's; "
            "%lu rows with no count in the head left at %s",
         now() - t0, fmt_est(estimate, e1, sizeof e1), rss_note(rss, sizeof rss), r.f_start * 1e-9,
         r.f_end * 1e-9, r.grad2_start > 0 ? sqrt(r.grad2_end / r.grad2_start) : 0.0,
         (unsigned long)r.rows_empty, W0 ? "the start's" : "0");
    return all;
}

/* -resume: the checkpoint's point (NULL for one of the SGD start, stage
   1), its best point and score, its run record (*run; stage 0 for an older
   file), the record's rows checked against the counts and -size; a stage 1
   record only for a run that starts by SGD. */
static ro_sgns_factors *load_resume(cli *c, const opts *o, const ro_sgns_counts *cn, int init_sgd,
                                    ro_sgns_run_record *run, ro_sgns_factors **kept, double *kept_score)
{
    ro_sgns_factors *x = NULL;
    ro_sgns_error err;
    reader r;
    reader_open(c, &r, "resume", o->resume, "loading");
    if (ro_sgns_factors_load_run_callback(reader_read, &r, &x, kept, kept_score, run, NULL, &err) !=
        RO_SGNS_OK) {
        end_line(c);
        die_read(c, &r, &err);
    }
    if (x) own(c, x, free_factors);
    if (*kept) own(c, *kept, free_factors);
    if (run->W) own(c, run->W, free_mem);
    reader_at_end(c, &r, "checkpoint");
    close_read(c, r.f);
    if (run->stage == RO_SGNS_RUN_SGD && !init_sgd)
        die(c, "-resume %s holds the state of an SGD start (-init sgd, the default with -train); "
               "this run starts by -init %s",
            o->resume, o->init);
    if (run->stage == RO_SGNS_RUN_SGD && o->virtual_workers < 1)
        die(c, "-resume %s: -virtual-workers 0 (Hogwild) cannot continue an SGD state", o->resume);
    if (run->fingerprint && run->fingerprint != ro_sgns_counts_fingerprint(cn))
        die(c, "-resume %s does not fit this run: other counts (fingerprint %016llx here, %016llx "
               "in the checkpoint)",
            o->resume, (unsigned long long)ro_sgns_counts_fingerprint(cn),
            (unsigned long long)run->fingerprint);
    if (run->rows && (run->rows != cn->n || run->d != (size_t)o->size))
        die(c, "-resume %s does not fit this run: its SGD rows are %lu x %lu, this run's %lu x %lld",
            o->resume, (unsigned long)run->rows, (unsigned long)run->d, (unsigned long)cn->n, o->size);
    if (run->stage == RO_SGNS_RUN_SGD)
        note(c, "-resume %s: in the SGD start, round %llu (%llu words done)", o->resume,
             (unsigned long long)run->round, (unsigned long long)run->words);
    return x;
}

static int cmd_train(cli *c, int argc, char **argv)
{
    opts o;
    unsigned char given[128] = {0};
    const flag_spec *s;
    int is_ro, is_svd, is_sgd, init_sgd = 0, init_file = 0, counting, pairs;
    size_t nh; /* the words RO trains (-head); cn->n: all */
    unsigned ctx = 0;
    ro_sgns_embedding_kind kind;
    scorer sc;
    ro_sgns_counts *cn;
    ro_sgns_factors *x = NULL, *kept = NULL; /* kept: -resume's best point */
    ro_sgns_real *W0 = NULL, *C0 = NULL;     /* the start's factors, for the fold (-fold-start) */
    ro_sgns_run_record run;                  /* -resume's record (stage 0: none) */
    double kept_score = 0;
    int curve_has_start = 0;
    char *text = NULL;
    size_t text_size = 0;
    FILE *curve = NULL;
    double t0 = now(), step_secs = 0;
    run_est est;
    memset(&run, 0, sizeof run);
    opts_default(&o);
    parse_flags(c, &TRAIN_CMD, argc, argv, &o, given, NULL);
    c->quiet = o.quiet;
    if (o.cbow)
        die(c, "-cbow 1: not supported: CBOW; ro-sgns trains skip-gram with negative sampling "
               "(-cbow 0 is accepted)");
    if (o.hs)
        die(c, "-hs 1: not supported: hierarchical softmax; ro-sgns uses negative sampling "
               "(-hs 0 is accepted)");
    is_ro = strcmp(o.method, "ro") == 0;
    is_svd = strcmp(o.method, "svd") == 0;
    is_sgd = strcmp(o.method, "sgd") == 0;
    if (!is_ro && !is_svd && !is_sgd) die(c, "-method %s: expected ro, svd or sgd", o.method);
    if (!o.output) die(c, "-output VECTORS is required (a file, or - for standard output)");
    if (is_ro && !o.init) o.init = o.train ? "sgd" : "svd"; /* with -resume too: the same run */
    if (o.virtual_workers < 0) o.virtual_workers = is_sgd ? ro_sgns_sgd_config_default().workers : CLI_INIT_WORKERS;
    if (is_ro) {
        init_sgd = strcmp(o.init, "sgd") == 0;
        init_file = !init_sgd && strcmp(o.init, "svd") != 0;
    }
    if (is_sgd && !o.train)
        die(c, "-method sgd needs -train TEXT, the corpus it trains on (-counts may give the "
               "vocabulary)");
    if (init_sgd && !o.train) die(c, "-init sgd needs -train TEXT, the corpus SGD trains on");
    if (!is_sgd && !o.train && !o.counts) die(c, "give -train TEXT (counted here) or -counts COUNTS");
    if (!is_sgd && !init_sgd && o.train && o.counts)
        die(c, "give -train TEXT or -counts COUNTS, not both: -method %s trains on counts (-train "
               "is counted into them)",
            o.method);

    /* which flags apply */
    counting = !o.counts;
    pairs = (counting && !is_sgd) || o.save_counts;
    ctx |= is_ro ? W_RO : is_svd ? W_SVD : W_SGD | W_SGDRUN;
    if (init_sgd) ctx |= W_SGD | W_SGDINIT;
    if (counting) ctx |= W_COUNT;
    if (pairs) ctx |= W_PAIRS;
    if (is_svd || (is_ro && !init_sgd && !init_file)) ctx |= W_SVDSTART;
    for (s = TRAIN_FLAGS; s->name; ++s)
        if (s->type != T_GROUP && given[s - TRAIN_FLAGS] && s->where && !(s->where & ctx)) {
            char there[256];
            where_text(s->where, there, sizeof there);
            die(c, "-%s does not apply to -method %s%s%s: it applies to %s%s%s", s->name, o.method,
                init_sgd ? " -init sgd" : "", counting ? "" : " with -counts", there,
                s->hint ? "; " : "", s->hint ? s->hint : "");
        }
    /* From the SGD start, RO refines the objective that SGD sampled (docs/
       ABLATION.md, "The objective SGD sampled"): its window drawn per word
       (whose expectation is the weighted window), its subsampling, its
       negatives from #(c)^0.75; it steps until -min-gain ends the run and
       writes W, which keeps SGD's analogies. Each stays the user's when
       given. */
    if (init_sgd) {
        if (!was_given(&TRAIN_CMD, given, "dynamic-window")) o.dynamic_window = RO_SGNS_WINDOW_WEIGHTED;
        if (!was_given(&TRAIN_CMD, given, "sample")) o.sample = o.init_sample;
        if (!was_given(&TRAIN_CMD, given, "cds")) o.cds = CLI_SGD_CDS;
        if (o.steps < 0) o.steps = CLI_SGD_STEPS;
        if (o.iter < 0) o.iter = CLI_INIT_EPOCHS;
        if (!o.embed) o.embed = "w";
    }
    if (was_given(&TRAIN_CMD, given, "init-contexts") && !init_file)
        die(c, "-init-contexts FILE needs -init FILE (the word vectors it goes with)");
    if (was_given(&TRAIN_CMD, given, "init-coverage") && !init_file)
        die(c, "-init-coverage needs -init FILE");
    if (was_given(&TRAIN_CMD, given, "fold-start") && !init_file && !init_sgd)
        die(c, "-fold-start needs a start with a row for every word (-init sgd, or -init FILE); "
               "the SVD-SPPMI start covers the head only");
    if (o.fold_prior > 0 && (!o.fold_start || (!init_file && !init_sgd)))
        die(c, "-fold-prior is a prior around each folded row's start: it needs -fold-start 1 "
               "and a start with a row for every word (-init sgd, or -init FILE)");
    if (o.resume && o.checkpoint && strcmp(o.resume, o.checkpoint) == 0 && access(o.resume, F_OK) != 0 &&
        errno == ENOENT) { /* killed before its first checkpoint: the run from the start */
        note(c, "-resume %s: no checkpoint yet; starting from the beginning", o.resume);
        o.resume = NULL;
    }
    if (o.keep_best && !o.neval)
        die(c, "-keep-best needs -eval PAIRS (and may add -analogy FILE): the score it keeps the best of");
    if (o.format && o.binary >= 0) die(c, "give -format or -binary, not both");
    if (o.save_counts && is_stdio(o.save_counts)) die(c, "-save-counts -: counts are binary; give a file name");
    if (strcmp(o.direction, "scaled") && strcmp(o.direction, "plain") && strcmp(o.direction, "metric"))
        die(c, "-direction %s: expected scaled, plain or metric", o.direction);
    if (was_given(&TRAIN_CMD, given, "cg-iter") && strcmp(o.direction, "metric"))
        die(c, "-cg-iter applies to -direction metric only");
    if (strcmp(o.svd, "krylov") && strcmp(o.svd, "subspace"))
        die(c, "-svd %s: expected krylov or subspace", o.svd);
    /* the defaults that gave the best vectors (docs/ABLATION.md): W + C for
       the factored methods from SVD-SPPMI or a file, W for SGD (as word2vec
       writes it); the SGD start's is set above */
    if (!o.embed) o.embed = is_sgd ? "w" : "w+c";
    kind = embed_kind(c, o.embed);
    if ((is_sgd || init_sgd) && (double)(long long)o.negative != o.negative)
        die(c, "-negative %g: SGD draws a whole number of negatives", o.negative);
    if (o.iter < 0) o.iter = ro_sgns_sgd_config_default().epochs; /* -method sgd */
    if (o.steps < 0) o.steps = ro_sgns_ro_config_default().iterations;
    if (o.format) {
        const char *why;
        (void)vectors_format(c, &o, o.output, &why);
    }

    /* every output checked, every input opened, before any long work */
    {
        const cmd_file files[] = {
            {"output", o.output, 1, NULL},         {"output-contexts", o.output_ctx, 1, NULL},
            {"save-counts", o.save_counts, 1, NULL}, {"checkpoint", o.checkpoint, 1, "resume"},
            {"curve", o.curve, 1, NULL},            {"train", o.train, 0, NULL},
            {"counts", o.counts, 0, NULL},          {"init", init_file ? o.init : NULL, 0, NULL},
            {"init-contexts", o.init_ctx, 0, NULL}, {"resume", o.resume, 0, NULL},
            {"analogy", o.analogy, 0, NULL}};
        check_distinct(c, files, (int)(sizeof files / sizeof files[0]));
    }
    check_output(c, "output", o.output, staged_extra());
    if (o.output_ctx) check_output(c, "output-contexts", o.output_ctx, staged_extra());
    if (o.save_counts) check_output(c, "save-counts", o.save_counts, CLI_TMP_EXTRA);
    if (o.checkpoint) check_output(c, "checkpoint", o.checkpoint, CLI_TMP_EXTRA);
    /* a pipe or FIFO is not opened to try it: closing it would end its writer */
    if (o.train && reads_twice(o.train)) close_read(c, open_read(c, "train", o.train));
    if (o.counts) close_read(c, open_read(c, "counts", o.counts));
    if (init_file) close_read(c, open_read(c, "init", o.init));
    if (o.init_ctx) close_read(c, open_read(c, "init-contexts", o.init_ctx));
    if (o.resume) close_read(c, open_read(c, "resume", o.resume));
    scorer_init(c, &sc, &o, o.analogy);
    check_sets_distinct(c, &o, &sc);
    if (o.curve) { /* the header now: a full disk shows before any work */
        struct stat cst; /* a FIFO's or device's through check_output's descriptor */
        check_output(c, "curve", o.curve, 0);
        curve = stat(o.curve, &cst) == 0 && !S_ISREG(cst.st_mode)
                    ? open_in_place(o.curve, o.resume ? "ab" : "wb")
                    : fopen(o.curve, o.resume ? "ab" : "wb");
        if (!curve) die(c, "-curve: cannot write '%s': %s", o.curve, strerror(errno));
        own(c, curve, close_file);
        if (!o.resume || (fstat(fileno(curve), &cst) == 0 && S_ISREG(cst.st_mode) && cst.st_size == 0)) {
            int i;
            fprintf(curve, "iteration,F_e9,seconds");
            for (i = 0; i < sc.nsets; ++i) fprintf(curve, ",%s", sc.name[i]);
            if (sc.analogies) fprintf(curve, ",analogy");
            if (sc.nsets || sc.analogies) fprintf(curve, ",mean");
            fputc('\n', curve);
        }
        if (fflush(curve) != 0 || ferror(curve))
            die(c, "-curve: cannot write '%s': %s", o.curve, strerror(errno));
    }
    set_threads(&o);

    /* the counts (and the text in memory, when it is read twice and can be read once) */
    if (o.train && !reads_twice(o.train) && (is_sgd || init_sgd) && counting)
        text = slurp(c, "train", o.train, &text_size);
    if (o.counts) {
        cn = load_counts(c, o.counts);
        if (!was_given(&TRAIN_CMD, given, "window")) o.window = cn->config.window;
    } else {
        ro_sgns_count_config cfg = count_config(&o);
        if (!is_sgd) cost_before_counting(c, &o);
        if (!pairs) { /* SGD needs only the vocabulary: the cheapest counts */
            cfg.window = 1;
            cfg.dynamic_window = RO_SGNS_WINDOW_FIXED;
            cfg.sample = 0;
            cfg.memory_budget = 0;
        }
        cn = count_text(c, o.train, text, text_size, &cfg, !pairs);
        kill_point("count");
        if (o.save_counts) save_counts(c, "save-counts", cn, o.save_counts);
    }
    if ((size_t)o.size > cn->n)
        die(c, "-size %lld is larger than the vocabulary (%lu words)", o.size, (unsigned long)cn->n);
    scorer_check(c, &sc, &cn->vocab);
    if (init_sgd && !o.resume) check_share(c, o.init_share, cn);
    nh = is_ro ? head_size(c, &o, cn) : cn->n;
    {
        cost_fit f;
        memset(&f, 0, sizeof f);
        f.o = &o;
        f.cn = cn;
        f.keep_best = o.keep_best;
        f.is_ro = is_ro;
        f.is_sgd = is_sgd;
        f.init_sgd = init_sgd && !o.resume;
        f.svd = is_svd || (is_ro && !init_sgd && !init_file && !o.resume);
        f.fold_w0 = nh < cn->n && o.fold_start && (init_sgd || init_file) && !o.resume;
        f.nh = nh;
        f.text_bytes = text ? (double)text_size : 0;
        f.read_secs = counting ? c->read_secs : 0;
        f.t0 = t0;
        step_secs = check_cost(c, &o, cn, &f, counting, text, text_size, &est);
    }

    if (is_sgd) {
        ro_sgns_real *W, *C;
        size_t i, nd = cn->n * (size_t)o.size;
        c->later = est.write;
        c->stage_est = est.sgd;
        run_sgd(c, &o, cn, text, text_size, 0, NULL, &W, &C);
        c->stage = 1; /* as write_point: both outputs or neither, the contexts first */
        if (o.output_ctx) write_vectors(c, &o, "output-contexts", o.output_ctx, cn, C, (size_t)o.size);
        if (kind == RO_SGNS_EMBED_W_PLUS_C) {
            ro_sgns_real *S = (ro_sgns_real *)alloc_array(c, nd, sizeof *S);
            for (i = 0; i < nd; ++i) S[i] = W[i] + C[i];
            write_vectors(c, &o, "output", o.output, cn, S, (size_t)o.size);
        } else {
            write_vectors(c, &o, "output", o.output, cn, kind == RO_SGNS_EMBED_C ? C : W, (size_t)o.size);
        }
        commit_outputs(c);
        {
            char rss[64], e1[32];
            note(c, "train: sgd d = %lld, %lld epoch(s), %.1f s (estimated %s)%s -> %s", o.size,
                 o.iter, now() - t0, fmt_est(est.total, e1, sizeof e1), rss_note(rss, sizeof rss),
                 is_stdio(o.output) ? "standard output" : o.output);
        }
        return 0;
    }

    /* the start */
    if (o.resume) x = load_resume(c, &o, cn, init_sgd, &run, &kept, &kept_score);
    if (o.resume && x) {
        ro_sgns_error err;
        /* the same counts (fingerprint), n, d, k, window and cds as the run */
        {
            /* a head run's checkpoint holds the head (-head): its n and m
               are nh; the rest is checked as for a whole run */
            ro_sgns_factors whole = *x;
            whole.n = whole.m = cn->n;
            if (ro_sgns_factors_check_resume(&whole, cn, o.negative, o.cds, (size_t)o.size, &err) !=
                RO_SGNS_OK)
                die(c, "-resume %s: %s", o.resume, err.message);
            if (x->n != nh || x->m != nh)
                die(c, "-resume %s has %lu words and %lu contexts; this run trains %lu (-head)",
                    o.resume, (unsigned long)x->n, (unsigned long)x->m, (unsigned long)nh);
        }
        if (x->counts_fingerprint == 0 && !run.fingerprint)
            warn(c, "-resume %s records no counts, k, window or cds (a version 1 file, or a point "
                 "no step made): only n and d were checked", o.resume);
        /* a step count below the checkpoint's is no run: refused, never its later point */
        if ((uint64_t)o.steps < x->iteration)
            die(c, "-resume %s is at step %llu, beyond -steps %lld: nothing to do (give -steps %llu "
                   "or more; -steps %llu writes the checkpoint's point)",
                o.resume, (unsigned long long)x->iteration, o.steps,
                (unsigned long long)x->iteration + 1, (unsigned long long)x->iteration);
        if (curve) curve_has_start = curve_cut(c, curve, o.curve, x->iteration);
        if (run.rows) { /* the fold's start rows, as the straight run kept them */
            W0 = run.W;
            C0 = run.C;
        } else if (nh < cn->n && o.fold_start && init_file) {
            W0 = init_matrix(c, &o, "init", o.init, cn);
            C0 = o.init_ctx ? init_matrix(c, &o, "init-contexts", o.init_ctx, cn) : W0;
        } else if (nh < cn->n && o.fold_start && init_sgd) {
            die(c, "-resume %s holds no rows of the SGD start (a checkpoint of an older ro-sgns): "
                   "the fold would start elsewhere than the straight run's; run again without -resume",
                o.resume);
        }
    } else if (init_file) {
        ro_sgns_real *W = init_matrix(c, &o, "init", o.init, cn), *C = W;
        ro_sgns_error err;
        if (o.init_ctx) C = init_matrix(c, &o, "init-contexts", o.init_ctx, cn);
        /* with -head, the first nh rows: the head's start */
        if (ro_sgns_factors_from_wc(nh, nh, (size_t)o.size, W, C, &x, NULL, &err) != RO_SGNS_OK)
            die(c, "%s", err.message);
        own(c, x, free_factors);
        if (nh < cn->n && o.fold_start) { /* the fold's start (fold_rest) */
            W0 = W;
            C0 = C;
        }
    } else if (init_sgd) {
        ro_sgns_real *W, *C;
        ro_sgns_error err;
        c->later = est.steps + (est.fold > 0 ? est.fold : 0) + est.write;
        c->stage_est = est.sgd;
        if (curve && o.resume) curve_has_start = curve_cut(c, curve, o.curve, 0);
        run_sgd(c, &o, cn, text, text_size, 1, run.stage == RO_SGNS_RUN_SGD ? &run : NULL, &W, &C);
        if (run.W) release(c, run.W);
        if (ro_sgns_factors_from_wc(nh, nh, (size_t)o.size, W, C, &x, NULL, &err) != RO_SGNS_OK)
            die(c, "-init sgd: %s", err.message);
        own(c, x, free_factors);
        if (nh < cn->n && o.fold_start) { /* kept for the fold's start (fold_rest) */
            W0 = W;
            C0 = C;
        } else {
            release(c, W);
            release(c, C);
        }
        if (o.checkpoint) { /* the start done: a kill from here on does not redo it */
            ro_sgns_run_record rec;
            char failure[RO_SGNS_MESSAGE_SIZE + 256];
            ro_sgns_factors stamped = *x; /* what the steps train it for, as a step records */
            stamped.counts_fingerprint = ro_sgns_counts_fingerprint(cn);
            stamped.k = o.negative;
            stamped.cds = o.cds;
            stamped.window = cn->config.window;
            memset(&rec, 0, sizeof rec);
            rec.stage = RO_SGNS_RUN_STEPS;
            rec.fingerprint = ro_sgns_counts_fingerprint(cn);
            rec.d = (size_t)o.size;
            rec.rows = W0 ? cn->n : 0;
            rec.W = W0;
            rec.C = C0;
            if (save_checkpoint(&o, &stamped, NULL, 0, &rec, "after the SGD start", failure,
                                sizeof failure))
                die(c, "%s", failure);
            kill_point("start");
        }
    } else {
        c->later = est.steps + (est.fold > 0 ? est.fold : 0) + est.write;
        x = svd_start(c, &o, cn, nh);
    }
    if (text) release(c, text);

    if (is_ro) {
        ro_sgns_ro_config rc = ro_sgns_ro_config_default();
        ro_sgns_problem *whole = make_problem(c, cn, o.negative, o.cds), *p = whole;
        train_ctx t;
        ro_sgns_error err;
        ro_sgns_result res;
        double F0 = 0, score[CLI_MAX_SETS + 1], mean = NAN, t1 = now();
        char line[1024];
        uint64_t start_it = x->iteration;
        if (nh < cn->n) { /* -head: RO on the head block, the rest folded in below */
            if (ro_sgns_problem_create_head(whole, nh, nh, &p, NULL, &err) != RO_SGNS_OK)
                die(c, "%s", err.message);
            own(c, p, free_problem);
            note(c, "head: RO on the %lu most frequent words and contexts; the other %lu folded "
                    "in after (-head)",
                 (unsigned long)nh, (unsigned long)(cn->n - nh));
        }
        memset(&t, 0, sizeof t);
        c->later = (est.fold > 0 ? est.fold : 0) + est.write;
        t.step_est = step_secs;
        t.c = c;
        t.o = &o;
        t.cn = cn;
        t.sc = &sc;
        t.kind = kind;
        t.curve = curve;
        t.curve_path = o.curve;
        t.first = start_it;
        t.last = (uint64_t)o.steps > start_it ? (uint64_t)o.steps : start_it;
        t.W0 = W0;
        t.C0 = C0;
        t.fingerprint = ro_sgns_counts_fingerprint(cn);
        if (run.stage == RO_SGNS_RUN_DONE) { /* the straight run stopped here: no step more */
            t.converged = 1;
            t.last_gain = run.last_gain;
            note(c, "-resume: the checkpoint's steps had stopped at step %llu (F rose by %.3f%%, "
                    "under -min-gain): no step more",
                 (unsigned long long)start_it, run.last_gain);
            t.last = start_it;
        }
        if (o.keep_best) {
            if (ro_sgns_factors_create(x->n, x->m, x->d, &t.best, NULL, &err) != RO_SGNS_OK)
                die(c, "%s", err.message);
            own(c, t.best, free_factors);
            if (kept) { /* the best point before the checkpoint, and its score */
                keep_if_best(&t, kept, kept_score);
                note(c, "keep-best: from the checkpoint, step %llu (mean score %.4f)",
                     (unsigned long long)kept->iteration, kept_score);
            } else if (o.resume && start_it > 0) {
                note(c, "keep-best: the checkpoint holds no best point (saved without -keep-best): "
                        "the best of step %llu on",
                     (unsigned long long)start_it);
            }
        }
        if (step_secs > 10) /* F at the start: one sweep, 2 of a step's 3 products */
            note(c, "iter   0: F at the start, one sweep (about %s) ...",
                 fmt_secs(step_secs * 0.6, line, sizeof line));
        if (ro_sgns_objective(p, x, &F0, &err) != RO_SGNS_OK) die(c, "%s", err.message);
        t.prob = p;
        if (o.grad_norm) {
            if (ro_sgns_tangent_norm(p, x, RO_SGNS_DIRECTION_PLAIN, &t.grad0, &err) != RO_SGNS_OK)
                die(c, "-grad-norm at the start: %s", err.message);
            note(c, "iter %3llu: |P_T(grad F)| %.4g at the start (-grad-norm)",
                 (unsigned long long)start_it, t.grad0);
        }
        if (score_point(&t, x, score, &mean)) die(c, "%s", t.failure);
        score_line(&t, score, mean, line, sizeof line);
        note(c, "iter %3llu/%llu  F %.5f e9 (start)%s", (unsigned long long)start_it,
             (unsigned long long)t.last, F0 * 1e-9, line);
        if (t.curve && !curve_has_start && curve_row(&t, start_it, F0, 0, score, mean))
            die(c, "%s", t.failure);
        keep_if_best(&t, x, mean);
        if (t.last > start_it) {
            rc.iterations = (int)(t.last - start_it);
            rc.direction = strcmp(o.direction, "plain") == 0    ? RO_SGNS_DIRECTION_PLAIN
                           : strcmp(o.direction, "metric") == 0 ? RO_SGNS_DIRECTION_METRIC
                                                                : RO_SGNS_DIRECTION_SCALED;
            rc.cg_iterations = (int)o.cg_iter;
            rc.step = o.eta > 0 ? o.eta : rc.direction == RO_SGNS_DIRECTION_PLAIN ? 5e-5 : rc.step;
            rc.safeguard = o.safeguard;
            rc.step_max = o.eta_max;
            if (rc.step_max > 0 && rc.step_max < rc.step)
                die(c, "-eta-max %g is below the step size %g: give one at least as large, or 0",
                    rc.step_max, rc.step);
            rc.fuse = o.fuse;
            rc.keep_direction_bytes = (size_t)o.keep_direction;
            if ((unsigned long long)rc.keep_direction_bytes != o.keep_direction)
                rc.keep_direction_bytes = (size_t)-1; /* beyond size_t: no limit */
            rc.callback = on_step;
            rc.user = &t;
            rc.report_blocks = 1;
            t.sweep = -1;
            t.t0 = now();
            res = ro_sgns_ro_train(p, x, &rc, &err);
            if (t.failed) die(c, "%s", t.failure);
            if (res < 0) die(c, "step %llu: %s", (unsigned long long)x->iteration + 1, err.message);
            if (x->iteration == start_it) {
                if (!o.allow_no_step)
                    die(c, "no RO step was accepted: step %llu lowered F at every size tried (%g, "
                           "halved %d times); the result would be the start. Try a smaller -eta, "
                           "or -allow-no-step to write the start",
                        (unsigned long long)start_it + 1, rc.step, rc.max_halvings);
                note(c, "no RO step was accepted (-allow-no-step): writing the start");
            } else if (t.converged && x->iteration < t.last) {
                note(c, "converged: step %llu raised F by %.3f%%, under -min-gain %g%%: stopped "
                        "before step %llu",
                     (unsigned long long)x->iteration, t.last_gain, o.min_gain,
                     (unsigned long long)t.last);
            } else if (x->iteration < t.last) {
                note(c, "stopped after step %llu of %llu: every try of the next step lowered F",
                     (unsigned long long)x->iteration, (unsigned long long)t.last);
            }
        }
        if (o.keep_best && t.have_best && t.best->iteration != x->iteration) {
            note(c, "keep-best: writing step %llu (mean score %.4f), not the last step %llu",
                 (unsigned long long)t.best->iteration, t.best_mean, (unsigned long long)x->iteration);
            x = t.best;
        } else if (o.keep_best) {
            note(c, "keep-best: the last step %llu has the best mean score (%.4f)",
                 (unsigned long long)x->iteration, t.best_mean);
        }
        {
            char rss[64], e1[32];
            note(c, "RO: %llu steps, %.1f s (estimated %s)%s", (unsigned long long)(x->iteration - start_it),
                 now() - t1, fmt_est(est.steps, e1, sizeof e1), rss_note(rss, sizeof rss));
        }
        c->later = est.write;
        if (nh < cn->n) {
            kill_point("fold");
            x = fold_rest(c, &o, whole, cn->n, x, W0, C0, est.fold);
        }
        write_point(c, &o, x, cn, kind);
        {
            char rss[64], e1[32];
            note(c, "train: ro d = %lld, %llu steps: RO %.1f s, total %.1f s (estimated %s)%s -> %s",
                 o.size, (unsigned long long)x->iteration, now() - t1, now() - t0,
                 fmt_est(est.total, e1, sizeof e1), rss_note(rss, sizeof rss),
                 is_stdio(o.output) ? "standard output" : o.output);
        }
        return 0;
    }
    write_point(c, &o, x, cn, kind);
    {
        char rss[64], e1[32];
        note(c, "train: svd d = %lld, total %.1f s (estimated %s)%s -> %s", o.size, now() - t0,
             fmt_est(est.total, e1, sizeof e1), rss_note(rss, sizeof rss),
             is_stdio(o.output) ? "standard output" : o.output);
    }
    return 0;
}

/* ============================================================ eval */

static const flag_spec EVAL_FLAGS[] = {
    G("flags:"),
    F("vectors", T_STR, vectors, 0, 0, 0, "VECTORS", "the vectors (required); - = standard input"),
    FLAGS_READ_FORMAT,
    F("analogy", T_STR, analogy, 0, 0, 0, "FILE", "questions: accuracy per section and overall"),
    F("analogy-method", T_STR, analogy_method, 0, 0, 0, "add|mul",
      "3CosAdd ({D}; Mikolov et al.) or 3CosMul (Levy\nand Goldberg)"),
    F("fold-case", T_01, fold_case, 0, 0, 1, "0|1",
      "fold words to ASCII lower case, for pairs and\nanalogies ({D}; gensim folds)"),
    F("restrict-vocab", T_INT, restrict_vocab, 0, 0, 1e15, "N",
      "only the first N rows count ({D} = all; gensim's\nanalogies: 300000)"),
    F("quiet", T_SWITCH, quiet, 0, 0, 0, NULL, "accepted; eval prints no progress"),
    END};

static const cmd_desc EVAL_CMD = {
    "eval", "usage: ro-sgns eval -vectors VECTORS [PAIRS_FILE|DIR ...] [-analogy FILE]\n"
    "       [flags]",
    "\nSpearman's rho (and Pearson's r) between each pair file's scores and the\n"
    "cosines of its words' vectors, pairs with an out-of-vocabulary word skipped;\n"
    "with -analogy, the accuracy of a b c -> d by 3CosAdd or 3CosMul, query words\n"
    "excluded. A file with fewer than 3 usable items is an error (exit 1, after\n"
    "the other results are printed).\n",
    EVAL_FLAGS, "files:\n" FILES_VECTORS FILES_PAIRS FILES_ANALOGY, 0};

static int cmd_eval(cli *c, int argc, char **argv)
{
    opts o;
    unsigned char given[64] = {0};
    char **pos = (char **)alloc_array(c, (size_t)argc + 1, sizeof(char *));
    int npos, i, failed = 0, rows_out = 0;
    scorer sc;
    ro_sgns_vectors *v;
    opts_default(&o);
    npos = parse_flags(c, &EVAL_CMD, argc, argv, &o, given, pos);
    c->quiet = 1;
    if (!o.vectors) die(c, "-vectors VECTORS is required");
    if (npos == 0 && !o.analogy) die(c, "give at least one word-pair file or folder (or -analogy FILE)");
    if (o.format && o.binary >= 0) die(c, "give -format or -binary, not both");
    if (strcmp(o.analogy_method, "add") && strcmp(o.analogy_method, "mul"))
        die(c, "-analogy-method %s: expected add or mul", o.analogy_method);
    memset(&sc, 0, sizeof sc);
    for (i = 0; i < npos; ++i) add_sets(c, &sc, "pairs", pos[i]);
    if (o.analogy) load_analogies(c, &sc, o.analogy); /* before the vectors: errors come fast */
    v = load_vectors(c, &o, "vectors", o.vectors);
    warn_zero_rows(c, v, o.vectors);
    /* a set with fewer than CLI_MIN_ITEMS usable pairs has no score: its
       error only, no row; the table's head and foot only around a row */
    for (i = 0; i < sc.nsets; ++i) {
        ro_sgns_similarity_config cfg = ro_sgns_similarity_config_default();
        ro_sgns_similarity_result r;
        ro_sgns_error err;
        cfg.fold_case = o.fold_case;
        cfg.restrict_vocab = (size_t)o.restrict_vocab;
        if (ro_sgns_similarity_eval(v, sc.pairs[i], &cfg, &r, NULL, &err) != RO_SGNS_OK) {
            fflush(stdout);
            fprintf(stderr, "ro-sgns eval: %s: %s\n", sc.path[i], err.message);
            failed = 1;
            continue;
        }
        if (r.pairs_used < CLI_MIN_ITEMS) {
            fflush(stdout);
            fprintf(stderr, "ro-sgns eval: %s: only %lu usable pairs; a score needs %d\n", sc.path[i],
                    (unsigned long)r.pairs_used, CLI_MIN_ITEMS);
            failed = 1;
            continue;
        }
        if (rows_out++ == 0)
            printf("%-24s %8s %8s %9s %9s\n", "pairs file", "spearman", "pearson", "used", "skipped");
        printf("%-24s %8.4f %8.4f %4lu/%-4lu %9lu\n", base_name(sc.path[i]), r.spearman, r.pearson,
               (unsigned long)r.pairs_used, (unsigned long)r.pairs_total, (unsigned long)r.pairs_oov);
    }
    if (rows_out) {
        char rows[64];
        if (o.restrict_vocab && (size_t)o.restrict_vocab < v->n)
            snprintf(rows, sizeof rows, "first %lld of %lu rows", o.restrict_vocab, (unsigned long)v->n);
        else
            snprintf(rows, sizeof rows, "all %lu rows", (unsigned long)v->n);
        printf("(out-of-vocabulary pairs skipped; case folding %s; %s)\n", o.fold_case ? "on" : "off", rows);
    }
    if (sc.analogies) {
        ro_sgns_analogy_config cfg = ro_sgns_analogy_config_default();
        ro_sgns_analogy_result *r = NULL;
        ro_sgns_error err;
        char line[512];
        size_t j, distinct;
        cfg.fold_case = o.fold_case;
        cfg.restrict_vocab = (size_t)o.restrict_vocab;
        cfg.method = strcmp(o.analogy_method, "mul") == 0 ? RO_SGNS_3COSMUL : RO_SGNS_3COSADD;
        if (ro_sgns_analogy_eval(v, sc.analogies, &cfg, &r, NULL, &err) != RO_SGNS_OK) {
            fflush(stdout);
            fprintf(stderr, "ro-sgns eval: %s: %s\n", o.analogy, err.message);
            return 1;
        }
        own(c, r, free_analogy_result);
        printf("%-30s %8s %9s %9s\n", "analogy section", "accuracy", "correct", "seen/all");
        for (j = 0; j < r->nsections; ++j) {
            const ro_sgns_analogy_section *q = r->sections + j;
            printf("%-30s %8.4f %9lu %4lu/%-4lu\n", q->name[0] ? q->name : "(no section)",
                   q->seen ? (double)q->correct / (double)q->seen : 0.0, (unsigned long)q->correct,
                   (unsigned long)q->seen, (unsigned long)q->total);
        }
        printf("%-30s %8.4f %9lu %4lu/%-4lu\n", "overall", r->accuracy, (unsigned long)r->correct,
               (unsigned long)r->seen, (unsigned long)r->total);
        ro_sgns_analogy_describe(r, line, sizeof line);
        printf("(%s: %s)\n", base_name(o.analogy), line);
        /* with case folding the library's match is not the exact one */
        distinct = usable_questions(c, sc.analogies, o.fold_case ? any_word : in_vectors, v);
        if (r->seen < CLI_MIN_ITEMS || distinct < CLI_MIN_ITEMS) {
            fflush(stdout);
            fprintf(stderr,
                    "ro-sgns eval: %s: only %lu of %lu questions usable (all four words in the "
                    "vocabulary; %lu distinct); a score needs %d\n",
                    o.analogy, (unsigned long)r->seen, (unsigned long)r->total,
                    (unsigned long)distinct, CLI_MIN_ITEMS);
            failed = 1;
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) die(c, "cannot write to standard output: %s", strerror(errno));
    return failed;
}

/* ============================================================ neighbors */

static const flag_spec NEIGHBORS_FLAGS[] = {
    G("flags:"),
    F("vectors", T_STR, vectors, 0, 0, 0, "VECTORS", "the vectors (required); - = standard input"),
    FLAGS_READ_FORMAT,
    F("k", T_INT, k, 0, 1, 10000, "N", "neighbours of each query ({D})"),
    F("restrict-vocab", T_INT, restrict_vocab, 0, 0, 1e15, "N",
      "answers from the first N rows only ({D} = all;\ngensim's restrict_vocab); query words from all"),
    F("quiet", T_SWITCH, quiet, 0, 0, 0, NULL, "accepted; neighbors prints no progress"),
    END};

static const cmd_desc NEIGHBORS_CMD = {
    "neighbors", "usage: ro-sgns neighbors -vectors VECTORS WORD [-WORD +WORD ...] ... [flags]",
    "\nThe nearest words by cosine. Each WORD starts a query; the words after it\n"
    "that begin with + or - are added to it or subtracted, as in gensim's\n"
    "most_similar(positive, negative): 'king -man +woman' ranks the rows by cosine\n"
    "with unit(king) - unit(man) + unit(woman), the query words left out. A query\n"
    "may begin with -WORD too. A word not in the vectors is an error (exit 1,\n"
    "after the other queries).\n",
    NEIGHBORS_FLAGS, "files:\n" FILES_VECTORS, 1};

static int cmd_neighbors(cli *c, int argc, char **argv)
{
    opts o;
    unsigned char given[64] = {0};
    char **pos = (char **)alloc_array(c, (size_t)argc + 1, sizeof(char *));
    int npos, i, failed = 0;
    ro_sgns_vectors *v;
    ro_sgns_neighbor *nb;
    const char **plus, **minus;
    opts_default(&o);
    npos = parse_flags(c, &NEIGHBORS_CMD, argc, argv, &o, given, pos);
    if (!o.vectors) die(c, "-vectors VECTORS is required");
    if (npos == 0) die(c, "give at least one word");
    if (o.format && o.binary >= 0) die(c, "give -format or -binary, not both");
    for (i = 0; i < npos; ++i)
        if ((pos[i][0] == '+' || pos[i][0] == '-') && pos[i][1] == '\0')
            die(c, "'%s' alone: write +WORD or -WORD", pos[i]);
    v = load_vectors(c, &o, "vectors", o.vectors);
    nb = (ro_sgns_neighbor *)alloc_array(c, (size_t)o.k, sizeof *nb);
    plus = (const char **)alloc_array(c, (size_t)npos, sizeof *plus);
    minus = (const char **)alloc_array(c, (size_t)npos, sizeof *minus);
    for (i = 0; i < npos;) { /* a query: WORD (or +WORD, -WORD), then +WORD and -WORD */
        int j, end = i + 1;
        size_t found, r, np = 0, nn = 0;
        ro_sgns_error err;
        while (end < npos && (pos[end][0] == '+' || pos[end][0] == '-')) ++end;
        for (j = i; j < end; ++j) {
            if (pos[j][0] == '-') minus[nn++] = pos[j] + 1;
            else plus[np++] = pos[j] + (pos[j][0] == '+');
        }
        ro_sgns_similar_query qy;
        qy.positive = plus, qy.npositive = np, qy.negative = minus, qy.nnegative = nn;
        qy.restrict_vocab = (size_t)o.restrict_vocab;
        if (ro_sgns_most_similar(v, &qy, (size_t)o.k, nb, &found, NULL, &err) != RO_SGNS_OK) {
            if (err.code != RO_SGNS_ERR_NOT_FOUND && err.code != RO_SGNS_ERR_INVALID_ARGUMENT)
                die(c, "%s", err.message);
            fflush(stdout);
            if (err.code == RO_SGNS_ERR_NOT_FOUND)
                fprintf(stderr, "ro-sgns neighbors: %s: %s\n", display(o.vectors), err.message);
            else /* the only argument most_similar can refuse here: a zero query */
                fprintf(stderr, "ro-sgns neighbors: '%s%s' is the zero vector: no cosine is defined\n",
                        pos[i], end > i + 1 ? " ..." : "");
            failed = 1;
        } else {
            for (j = i; j < end; ++j) printf("%s%s", j > i ? " " : "", pos[j]);
            printf(":\n");
            for (r = 0; r < found; ++r) printf("  %-20s %.4f\n", v->words[nb[r].row], nb[r].similarity);
        }
        i = end;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) die(c, "cannot write to standard output: %s", strerror(errno));
    return failed;
}

/* ============================================================ similarity */

static const flag_spec SIMILARITY_FLAGS[] = {
    G("flags:"),
    F("vectors", T_STR, vectors, 0, 0, 0, "VECTORS", "the vectors (required); - = standard input"),
    FLAGS_READ_FORMAT,
    F("pairs", T_STR, pairs, 0, 0, 0, "FILE",
      "word pairs (FILE below): 'word1 word2 similarity'\nprinted for each; - = standard input"),
    F("allow-missing", T_01, allow_missing, 0, 0, 1, "0|1",
      "with -pairs: exit status 0 when a pair has a word\nnot in the vectors (still named on stderr) ({D})"),
    F("quiet", T_SWITCH, quiet, 0, 0, 0, NULL, "accepted; similarity prints no progress"),
    END};

static const cmd_desc SIMILARITY_CMD = {
    "similarity", "usage: ro-sgns similarity -vectors VECTORS WORD1 WORD2 [flags]\n"
    "       ro-sgns similarity -vectors VECTORS -pairs FILE [flags]",
    "\nThe cosine of two words' vectors, as gensim's KeyedVectors.similarity gives\n"
    "it (the dot of the unit vectors; a zero vector has cosine 0 with every word,\n"
    "with a warning), to 9 significant digits. Words match byte for byte (no case\n"
    "folding, as gensim). Two words print the number alone; a word not in the\n"
    "vectors is an error naming it (exit 1). With -pairs each pair prints\n"
    "'word1 word2 similarity', in the file's order; a pair with a word not in the\n"
    "vectors prints no line but an error on stderr naming the word and the line,\n"
    "the other pairs are answered, and the exit status is 1 (0 with\n"
    "-allow-missing 1). A malformed pairs file prints nothing (exit 1).\n",
    SIMILARITY_FLAGS,
    "files:\n" FILES_VECTORS
    "  FILE     word1 word2, a pair a line, tabs or spaces; a third column (a\n"
    "           score: eval's PAIRS files) is read past; '#' starts a comment.\n",
    0};

/* the pairs of a -pairs file: words 2i and 2i + 1 of w, line[i] its line */
typedef struct word_pairs {
    char **w;
    unsigned long *line;
    size_t n;
} word_pairs;

/* Split text's lines at every byte from 0x00 to 0x20 (the token rule);
   blank lines and '#' lines are skipped, a field starting with '#' ends
   the line. A line is word1 word2 [score]: anything else is an error,
   before any output. */
static void read_word_pairs(cli *c, const char *path, word_pairs *p)
{
    size_t size, i = 0, cap = 64;
    char *text = slurp(c, "pairs", path, &size);
    unsigned long line = 0;
    text = (char *)regrow(c, text, size + 1, 1); /* the last word ends too */
    text[size] = '\0';
    p->n = 0;
    p->w = (char **)alloc_array(c, 2 * cap, sizeof *p->w);
    p->line = (unsigned long *)alloc_array(c, cap, sizeof *p->line);
    if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) i = 3; /* a UTF-8 BOM */
    while (i < size) {
        char *f[4];
        size_t nf = 0;
        double score;
        ++line;
        while (i < size && text[i] != '\n') {
            if ((unsigned char)text[i] <= 0x20) {
                text[i++] = '\0';
                continue;
            }
            if (text[i] == '#') break;
            if (nf < 4) f[nf] = text + i;
            ++nf;
            while (i < size && (unsigned char)text[i] > 0x20) ++i;
        }
        while (i < size && text[i] != '\n') ++i; /* a comment */
        if (i < size) text[i++] = '\0';
        if (nf == 0) continue;
        if (nf < 2 || nf > 3)
            die(c, "%s line %lu: %lu field%s, expected 'word1 word2' or 'word1 word2 score'",
                display(path), line, (unsigned long)nf, nf == 1 ? "" : "s");
        if (nf == 3 && !parse_decimal(f[2], &score))
            die(c, "%s line %lu: the third field '%.40s' is not a number (a score), expected "
                   "'word1 word2' or 'word1 word2 score'",
                display(path), line, f[2]);
        if (p->n == cap) {
            p->w = (char **)regrow(c, p->w, 2 * (cap *= 2), sizeof *p->w);
            p->line = (unsigned long *)regrow(c, p->line, cap, sizeof *p->line);
        }
        p->w[2 * p->n] = f[0];
        p->w[2 * p->n + 1] = f[1];
        p->line[p->n++] = line;
    }
    if (p->n == 0) die(c, "%s: no word pairs", display(path));
}

/* The cosine of w1 and w2 in *sim: 0 and a message in why when a word is
   not in v; 1 otherwise, and *zero the word with a zero vector, if any. */
static int word_similarity(const ro_sgns_vectors *v, const char *w1, const char *w2, double *sim,
                           const char **zero, char *why, size_t size)
{
    size_t r1, r2;
    int in1 = ro_sgns_vectors_find(v, w1, &r1), in2 = ro_sgns_vectors_find(v, w2, &r2);
    ro_sgns_error err;
    if (!in1 && !in2 && strcmp(w1, w2) != 0)
        snprintf(why, size, "'%.100s' and '%.100s' are not in", w1, w2);
    else if (!in1 || !in2)
        snprintf(why, size, "'%.100s' is not in", in1 ? w2 : w1);
    if (!in1 || !in2) return 0;
    /* the library's gensim similarity; it cannot fail on two found words */
    if (ro_sgns_similarity_of_words(v, w1, w2, sim, &err) != RO_SGNS_OK) {
        snprintf(why, size, "%s", err.message);
        return 0;
    }
    *zero = is_zero(v->data + r1 * v->d, v->d)   ? w1
            : is_zero(v->data + r2 * v->d, v->d) ? w2
                                                 : NULL;
    return 1;
}

static int cmd_similarity(cli *c, int argc, char **argv)
{
    opts o;
    unsigned char given[64] = {0};
    char **pos = (char **)alloc_array(c, (size_t)argc + 1, sizeof(char *));
    char why[256];
    int npos;
    size_t i, missing = 0, zeros = 0;
    const char *zero = NULL, *first_zero = NULL;
    unsigned long zero_line = 0;
    double sim;
    word_pairs wp;
    ro_sgns_vectors *v;
    opts_default(&o);
    memset(&wp, 0, sizeof wp);
    npos = parse_flags(c, &SIMILARITY_CMD, argc, argv, &o, given, pos);
    c->quiet = 1;
    if (!o.vectors) die(c, "-vectors VECTORS is required");
    if (o.format && o.binary >= 0) die(c, "give -format or -binary, not both");
    if (o.pairs && npos > 0) die(c, "give two words or -pairs FILE, not both");
    if (!o.pairs && npos != 2)
        die(c, "give two words (ro-sgns similarity -vectors VECTORS WORD1 WORD2) or -pairs FILE");
    if (!o.pairs && was_given(&SIMILARITY_CMD, given, "allow-missing"))
        die(c, "-allow-missing applies to -pairs FILE only");
    if (o.pairs && is_stdio(o.pairs) && is_stdio(o.vectors))
        die(c, "-vectors and -pairs cannot both read standard input");
    if (o.pairs) read_word_pairs(c, o.pairs, &wp); /* before the vectors: errors come fast */
    v = load_vectors(c, &o, "vectors", o.vectors);
    if (!o.pairs) {
        if (!word_similarity(v, pos[0], pos[1], &sim, &zero, why, sizeof why))
            die(c, "%s %s", why, display(o.vectors));
        if (zero)
            warn(c, "'%s' is the zero vector: its cosine is 0 with every word (gensim's similarity gives 0.0)",
                 zero);
        printf("%.9g\n", sim);
    }
    for (i = 0; o.pairs && i < wp.n; ++i) {
        const char *w1 = wp.w[2 * i], *w2 = wp.w[2 * i + 1];
        if (!word_similarity(v, w1, w2, &sim, &zero, why, sizeof why)) {
            fflush(stdout);
            fprintf(stderr, "ro-sgns similarity: %s line %lu: %s %s\n", display(o.pairs), wp.line[i], why,
                    display(o.vectors));
            ++missing;
            continue;
        }
        if (zero && zeros++ == 0) {
            first_zero = zero;
            zero_line = wp.line[i];
        }
        printf("%s %s %.9g\n", w1, w2, sim);
    }
    if (zeros)
        warn(c, "%s: %lu pair(s) with a zero vector (the first: '%s', line %lu): scored 0, as gensim's "
                "similarity does", display(o.pairs), (unsigned long)zeros, first_zero, zero_line);
    if (fflush(stdout) != 0 || ferror(stdout)) die(c, "cannot write to standard output: %s", strerror(errno));
    if (missing && !o.allow_missing)
        die(c, "%s: %lu of %lu pairs have a word not in %s", display(o.pairs), (unsigned long)missing,
            (unsigned long)wp.n, display(o.vectors));
    if (missing)
        warn(c, "%s: %lu of %lu pairs have a word not in %s (-allow-missing 1: exit status 0)",
             display(o.pairs), (unsigned long)missing, (unsigned long)wp.n, display(o.vectors));
    return 0;
}

/* ============================================================ objective */

static const flag_spec OBJECTIVE_FLAGS[] = {
    G("flags:"),
    F("counts", T_STR, counts, 0, 0, 0, "COUNTS", "the counts (required)"),
    F("vectors", T_STR, vectors, 0, 0, 0, "W", "word vectors (required)"),
    F("contexts", T_STR, contexts, 0, 0, 0, "C", "context vectors (default: C = W)"),
    FLAGS_READ_FORMAT,
    {"negative", T_NUM, offsetof(opts, negative), 0, 1e-6, CLI_MAX_NEGATIVE, "K",
     "negative samples k ({D}; at most {NEG})", "neg", NULL},
    F("cds", T_NUM, cds, 0, 0.01, 1, "A", "context distribution smoothing ({D} = off)"),
    F("bands", T_STR, bands, 0, 0, 0, "N1,N2,...",
      "F per band of -vectors' rows ([0, N1), [N1, N2),\n..., the rest), on the pairs of words and\n"
      "contexts both in -vectors (text the model did\nnot see: its fit per pair, by frequency band)"),
    F("quiet", T_SWITCH, quiet, 0, 0, 0, NULL, "no progress on stderr"),
    END};

static const cmd_desc OBJECTIVE_CMD = {
    "objective", "usage: ro-sgns objective -counts COUNTS -vectors W [-contexts C] [flags]",
    "\nThe SGNS objective F(X) of X = W C^T on the counts (the paper's eq. 4 and\n"
    "Table 1; larger is better): every method's vectors scored by one measure.\n"
    "Rows follow the counts' vocabulary; a word without a vector is a zero row.\n"
    "With -bands, rows and columns follow -vectors instead: the pairs with a word\n"
    "or context not in it are dropped (and so are their margins), and F and F per\n"
    "pair are printed per band of rows (docs/CLI.md, 'Held-out text').\n",
    OBJECTIVE_FLAGS, "files:\n" FILES_COUNTS FILES_VECTORS, 0};

/* -vectors or -contexts of objective: none of the counts' words is an
   error; some missing (zero rows, which change F) a note */
static void note_missing(cli *c, const char *flag, const char *path, size_t found, size_t n)
{
    if (!found) die(c, "-%s %s has no word of the counts' vocabulary", flag, path);
    if (found < n)
        note(c, "-%s %s: %lu of %lu words have no vector (zero rows)", flag, path,
             (unsigned long)(n - found), (unsigned long)n);
}

/* -bands "N1,N2,...": ascending ends in (0, n), into e (at most CLI_MAX_LIST), the last = n */
static size_t parse_bands(cli *c, const char *spec, size_t n, size_t *e)
{
    size_t k = 0;
    const char *q = spec;
    for (;;) {
        char *end;
        long long v;
        errno = 0;
        v = strtoll(q, &end, 10);
        if (end == q || errno || v <= 0 || (size_t)v >= n || (k && (size_t)v <= e[k - 1]) ||
            (*end != ',' && *end != 0) || k + 2 > CLI_MAX_LIST)
            die(c, "-bands %s: give up to %d ascending row counts between 1 and %lu (the "
                   "vectors' words less one), comma-separated", spec, CLI_MAX_LIST - 1,
                (unsigned long)(n - 1));
        e[k++] = (size_t)v;
        if (*end == 0) break;
        q = end + 1;
    }
    e[k++] = n;
    return k;
}

typedef struct band_entry {
    uint32_t col;
    float val;
} band_entry;

static int cmp_band_entry(const void *a, const void *b)
{
    const uint32_t x = ((const band_entry *)a)->col, y = ((const band_entry *)b)->col;
    return x < y ? -1 : x > y;
}

/* The counts' pairs in the order of v's words (rows and columns; pairs
   with a word not in v dropped) as a problem; *pairs = their sum per row
   (n doubles, allocated). */
static ro_sgns_problem *problem_in_vectors(cli *c, const ro_sgns_counts *cn,
                                           const ro_sgns_vectors *v, const opts *o, double **pairs)
{
    size_t *inv = (size_t *)alloc_array(c, v->n, sizeof(size_t)); /* v row -> counts row + 1 */
    size_t *to = (size_t *)alloc_array(c, cn->n, sizeof(size_t)); /* counts row -> v row + 1 */
    uint64_t *rp = (uint64_t *)alloc_array(c, v->n + 1, sizeof(uint64_t)), e, k = 0;
    uint32_t *col;
    float *val;
    band_entry *row = (band_entry *)alloc_array(c, cn->n + 1, sizeof(band_entry));
    ro_sgns_problem *p = NULL;
    ro_sgns_error err;
    size_t i, r, len;
    *pairs = (double *)alloc_array(c, v->n, sizeof(double));
    for (r = 0; r < v->n; ++r) inv[r] = 0;
    for (i = 0; i < cn->n; ++i) {
        to[i] = ro_sgns_vectors_find(v, cn->vocab.word[i], &r) ? r + 1 : 0;
        if (to[i]) inv[r] = i + 1;
    }
    for (i = 0; i < cn->n; ++i)
        if (to[i])
            for (e = cn->row_ptr[i]; e < cn->row_ptr[i + 1]; ++e) k += to[cn->col[e]] != 0;
    col = (uint32_t *)alloc_array(c, k + 1, sizeof(uint32_t));
    val = (float *)alloc_array(c, k + 1, sizeof(float));
    rp[0] = k = 0;
    for (r = 0; r < v->n; ++r) {
        (*pairs)[r] = 0;
        len = 0;
        if (inv[r]) {
            for (e = cn->row_ptr[inv[r] - 1]; e < cn->row_ptr[inv[r]]; ++e)
                if (to[cn->col[e]]) {
                    row[len].col = (uint32_t)(to[cn->col[e]] - 1);
                    row[len++].val = cn->val[e];
                }
            qsort(row, len, sizeof *row, cmp_band_entry);
        }
        for (i = 0; i < len; ++i, ++k) {
            col[k] = row[i].col;
            val[k] = row[i].val;
            (*pairs)[r] += (double)row[i].val;
        }
        rp[r + 1] = k;
    }
    if (!k) die(c, "-bands: no pair of the counts has both words in -vectors");
    if (ro_sgns_problem_create_csr(v->n, v->n, rp, col, val, o->negative, o->cds, &p, NULL, &err) !=
        RO_SGNS_OK)
        die(c, "%s", err.message);
    release(c, inv);
    release(c, to);
    release(c, row);
    return (ro_sgns_problem *)own(c, p, free_problem);
}

/* objective -bands: F on the pairs within -vectors, per band of its rows */
static void objective_bands(cli *c, const opts *o, const ro_sgns_counts *cn,
                            const ro_sgns_vectors *w, const ro_sgns_real *C)
{
    size_t ends[CLI_MAX_LIST], nb = parse_bands(c, o->bands, w->n, ends), b, r, a = 0;
    double *pairs, F = 0, P = 0;
    ro_sgns_problem *p = problem_in_vectors(c, cn, w, o, &pairs);
    ro_sgns_error err;
    for (b = 0; b < nb; a = ends[b++]) {
        ro_sgns_problem *rows = NULL;
        double Fb, Pb = 0;
        for (r = a; r < ends[b]; ++r) Pb += pairs[r];
        if (ro_sgns_problem_create_rows(p, a, ends[b], &rows, NULL, &err) != RO_SGNS_OK ||
            ro_sgns_objective_wc(rows, w->data + a * w->d, C, w->d, &Fb, &err) != RO_SGNS_OK) {
            ro_sgns_problem_free(rows);
            die(c, "%s", err.message);
        }
        ro_sgns_problem_free(rows);
        printf("rows [%lu, %lu): F = %.9g e6, pairs %.9g, F per pair %.6f\n", (unsigned long)a,
               (unsigned long)ends[b], Fb * 1e-6, Pb, Pb > 0 ? Fb / Pb : 0.0);
        F += Fb;
        P += Pb;
    }
    printf("all rows: F = %.9g e6, pairs %.9g, F per pair %.6f (k = %g, cds = %g, %lu words, "
           "d = %lu)\n", F * 1e-6, P, P > 0 ? F / P : 0.0, o->negative, o->cds,
           (unsigned long)w->n, (unsigned long)w->d);
}

static int cmd_objective(cli *c, int argc, char **argv)
{
    opts o;
    unsigned char given[64] = {0};
    ro_sgns_counts *cn;
    ro_sgns_problem *p;
    ro_sgns_vectors *w, *cv;
    ro_sgns_real *W, *C;
    ro_sgns_error err;
    size_t found;
    double F;
    opts_default(&o);
    parse_flags(c, &OBJECTIVE_CMD, argc, argv, &o, given, NULL);
    c->quiet = o.quiet;
    if (!o.counts || !o.vectors) die(c, "-counts COUNTS and -vectors W are required");
    if (o.format && o.binary >= 0) die(c, "give -format or -binary, not both");
    cn = load_counts(c, o.counts);
    w = load_vectors(c, &o, "vectors", o.vectors);
    cv = o.contexts ? load_vectors(c, &o, "contexts", o.contexts) : NULL;
    if (cv && cv->d != w->d)
        die(c, "-contexts %s has dimension %lu, -vectors %s has %lu", o.contexts,
            (unsigned long)cv->d, o.vectors, (unsigned long)w->d);
    if (o.bands) { /* rows and columns in -vectors' order */
        C = cv ? rows_by_words(c, cv, w->words, w->n, &found) : w->data;
        if (cv && found < w->n)
            note(c, "-contexts %s: %lu of the %lu words of -vectors have no vector (zero rows)",
                 o.contexts, (unsigned long)(w->n - found), (unsigned long)w->n);
        objective_bands(c, &o, cn, w, C);
    } else { /* rows and columns in the counts' order */
        W = aligned_matrix(c, w, cn, &found);
        note_missing(c, "vectors", o.vectors, found, cn->n);
        C = W;
        if (cv) {
            C = aligned_matrix(c, cv, cn, &found);
            note_missing(c, "contexts", o.contexts, found, cn->n);
        }
        p = make_problem(c, cn, o.negative, o.cds);
        if (ro_sgns_objective_wc(p, W, C, w->d, &F, &err) != RO_SGNS_OK) die(c, "%s", err.message);
        printf("F = %.6f e9 (k = %g, cds = %g, %lu words, d = %lu, contexts %s)\n", F * 1e-9,
               o.negative, o.cds, (unsigned long)cn->n, (unsigned long)w->d,
               o.contexts ? o.contexts : "= words");
    }
    if (fflush(stdout) != 0 || ferror(stdout)) die(c, "cannot write to standard output: %s", strerror(errno));
    return 0;
}

/* ============================================================ vocab */

static const flag_spec VOCAB_FLAGS[] = {
    G("flags:"),
    F("quiet", T_SWITCH, quiet, 0, 0, 0, NULL, "no progress on stderr"),
    END};

static const cmd_desc VOCAB_CMD = {
    "vocab", "usage: ro-sgns vocab COUNTS [flags]",
    "\nThe vocabulary of a counts file, one 'word count' line a word, in the\n"
    "counts' order (most frequent first): word2vec's -save-vocab format, without\n"
    "its </s> line. The count is how often the word occurs in the corpus.\n",
    VOCAB_FLAGS, "files:\n" FILES_COUNTS, 0};

static int cmd_vocab(cli *c, int argc, char **argv)
{
    opts o;
    unsigned char given[64] = {0};
    char **pos = (char **)alloc_array(c, (size_t)argc + 1, sizeof(char *));
    const ro_sgns_counts *cn;
    size_t i;
    int npos;
    opts_default(&o);
    npos = parse_flags(c, &VOCAB_CMD, argc, argv, &o, given, pos);
    c->quiet = o.quiet;
    if (npos != 1) die(c, "give one counts file (ro-sgns vocab COUNTS)");
    cn = load_counts(c, pos[0]);
    end_line(c);
    for (i = 0; i < cn->vocab.n; ++i)
        printf("%s %llu\n", cn->vocab.word[i], (unsigned long long)cn->vocab.count[i]);
    if (fflush(stdout) != 0 || ferror(stdout)) die(c, "cannot write to standard output: %s", strerror(errno));
    return 0;
}

/* ============================================================ main */

static const char *const SYNOPSIS[] = {
    "ro-sgns train -train TEXT -output VECTORS [-method ro|svd|sgd] [flags]",
    "ro-sgns train -counts COUNTS -output VECTORS [flags]",
    "ro-sgns count -train TEXT -output COUNTS [flags]",
    "ro-sgns eval -vectors VECTORS [PAIRS_FILE|DIR ...] [-analogy FILE] [flags]",
    "ro-sgns neighbors -vectors VECTORS WORD [-WORD +WORD ...] ... [flags]",
    "ro-sgns similarity -vectors VECTORS WORD1 WORD2 [flags]",
    "ro-sgns similarity -vectors VECTORS -pairs FILE [flags]",
    "ro-sgns objective -counts COUNTS -vectors W [-contexts C] [flags]",
    "ro-sgns vocab COUNTS [flags]",
    "ro-sgns COMMAND -help",
    "ro-sgns -version",
    NULL};

static void print_usage(FILE *f)
{
    int i;
    fprintf(f, "ro-sgns %s - word embeddings by Riemannian optimization of skip-gram negative\n"
               "sampling (Fonarev et al., ACL 2017), with SVD-SPPMI and word2vec's SGD beside it\n\n",
            RO_SGNS_VERSION_STRING);
    fprintf(f, "usage:\n");
    for (i = 0; SYNOPSIS[i]; ++i) fprintf(f, "  %s\n", SYNOPSIS[i]);
    fputs("\n"
          "  train      text (or counts) -> vectors: RO-SGNS (default), SVD-SPPMI, SGD\n"
          "  count      text -> co-occurrence counts, for train -counts and objective\n"
          "  eval       Spearman on word-pair files; analogy accuracy per section\n"
          "  neighbors  nearest words by cosine, of a word or of king -man +woman\n"
          "  similarity the cosine of two words, or of each pair of a file (gensim's)\n"
          "  objective  the SGNS objective F of vectors W (and contexts C) on counts\n"
          "  vocab      the words of counts with their counts (word2vec's -save-vocab)\n"
          "\n"
          "ro-sgns COMMAND -help lists the command's flags, their defaults and its file\n"
          "formats. Flags are word2vec's where word2vec has them (-train -output -size\n"
          "-window -negative -iter -alpha -sample -min-count -threads -binary) and\n"
          "hyperwords' otherwise (-eig -cds -neg, -embed w+c). Progress goes to stderr\n"
          "(-quiet silences it), results to stdout; an error is one line on stderr and\n"
          "exit status 1.\n",
          f);
}

static int is_help(const char *a)
{
    return strcmp(a, "-help") == 0 || strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 ||
           strcmp(a, "help") == 0;
}

/* the one setjmp: die() comes back here, with 1 */
static int run_cmd(cli *c, const cmd_desc *cd, int argc, char **argv)
{
    if (setjmp(c->fail) != 0) return 1;
    if (cd == &TRAIN_CMD) return cmd_train(c, argc, argv);
    if (cd == &COUNT_CMD) return cmd_count(c, argc, argv);
    if (cd == &EVAL_CMD) return cmd_eval(c, argc, argv);
    if (cd == &NEIGHBORS_CMD) return cmd_neighbors(c, argc, argv);
    if (cd == &SIMILARITY_CMD) return cmd_similarity(c, argc, argv);
    if (cd == &VOCAB_CMD) return cmd_vocab(c, argc, argv);
    return cmd_objective(c, argc, argv);
}

/* What went to standard output reached it: a full disk or /dev/full makes
   the exit status 1 with the reason, whatever printed there (-version,
   -help, eval's scores). */
static int stdout_status(int rc)
{
    int bad = fflush(stdout) != 0 || ferror(stdout);
    if (!bad) return rc;
    fprintf(stderr, "ro-sgns: cannot write to standard output: %s\n", strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    static const cmd_desc *const CMDS[] = {&TRAIN_CMD, &COUNT_CMD, &EVAL_CMD, &NEIGHBORS_CMD,
                                           &SIMILARITY_CMD, &OBJECTIVE_CMD, &VOCAB_CMD};
    cli c;
    int rc, i;
    const cmd_desc *cd = NULL;
    memset(&c, 0, sizeof c);
    c.tty = isatty(fileno(stderr));
    if (argc < 2) {
        print_usage(stderr);
        return 1;
    }
    if (strcmp(argv[1], "-version") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("ro-sgns %s\n", RO_SGNS_VERSION_STRING);
        return stdout_status(0);
    }
    if (is_help(argv[1]) && argc == 2) {
        print_usage(stdout);
        return stdout_status(0);
    }
    for (i = 0; i < (int)(sizeof CMDS / sizeof CMDS[0]); ++i)
        if (strcmp(argv[is_help(argv[1]) ? 2 : 1], CMDS[i]->name) == 0) cd = CMDS[i];
    if (!cd) {
        fprintf(stderr, "ro-sgns: unknown command '%s' (ro-sgns -help lists them)\n",
                argv[is_help(argv[1]) ? 2 : 1]);
        return 1;
    }
    if (is_help(argv[1])) { /* ro-sgns help train */
        print_cmd_help(cd, stdout);
        return stdout_status(0);
    }
    for (i = 2; i < argc; ++i)
        if (is_help(argv[i]) && (cd->words ? argv[i][0] == '-' : 1) && strcmp(argv[i], "help") != 0) {
            print_cmd_help(cd, stdout);
            return stdout_status(0);
        }
    c.cmd = cd->name;
    rc = run_cmd(&c, cd, argc - 2, argv + 2);
    end_line(&c);
    release_all(&c);
    return stdout_status(rc);
}
