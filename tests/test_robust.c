/* test_robust.c - every public entry point under allocation
   failure, and saves that fail or are killed halfway.

   ALLOCATION FAILURES. Every allocation of the library goes through one
   counting allocator, reached two ways: the RO_SGNS_MALLOC/REALLOC/FREE
   macros (calls given no runtime allocator) and a runtime ro_sgns_allocator
   RA (calls given &RA, and the objects they make). It fails exactly the N-th
   allocation of a call. For each entry point, on a small input, N runs 0, 1,
   2, ... until the call makes fewer than N + 1 allocations; every run must
     - return RO_SGNS_ERR_OUT_OF_MEMORY with err filled in (and, once N is
       past the allocations made, what the call returns without failures);
     - hold no block afterwards: none after a failed call, none after freeing
       what a successful call returned;
     - free each block through the route it came from (runtime or macros),
       once;
     - leave the caller's objects alone: outputs untouched on failure and
       equal to a reference run's on success, inputs never changed.
   Entry points that need no memory run once and must allocate nothing.
   tests/robust_coverage.sh checks that every RO_SGNS_DEF function of the
   header is called here.

   CRASH SAFETY. Saving counts, a checkpoint or vectors (three formats) over
   an existing file, when
     - the disk fills up halfway (POSIX: a child process whose files may
       not grow past 4096 bytes, RLIMIT_FSIZE, with SIGXFSZ ignored),
     - the saving process is killed halfway (the same limit's SIGXFSZ
       ends the child in the middle of a write),
     - the folder does not exist, or the path is a directory,
     - an allocation fails (the sweeps above),
   leaves the old file under its name, byte for byte, and, where the save
   returned an error, no temporary file beside it (a kill leaves exactly
   one); errors name the user's path and the OS's reason, never the
   temporary name. A file of the user's named "<path>.tmp" is never
   touched. A symbolic link's target is replaced and the link stays; a
   FIFO, a character device (a /dev/null of the test's own, made with
   mknod when root) and "-" are written in place and stay what they are;
   /dev/full gives an I/O error. ro_sgns_check_output_path says the same
   before any work. A write callback that fails at its k-th call, for
   every k, gives RO_SGNS_ERR_IO and is never called again. A save that
   succeeds replaces the old file and leaves no temporary file. */
#if !defined(_WIN32) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* fork, mkfifo, mknod, symlink, kill, setrlimit */
#endif
#if !defined(_WIN32) && !defined(_FILE_OFFSET_BITS)
/* 32-bit builds: readdir fails with EOVERFLOW on ext4's 64-bit directory
   offsets (armhf under qemu-user) unless the 64-bit calls are used */
#define _FILE_OFFSET_BITS 64
#endif
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *oom_macro_malloc(void *c, size_t size);
static void *oom_macro_realloc(void *c, void *p, size_t size);
static void oom_macro_free(void *c, void *p);
#define RO_SGNS_MALLOC(c, sz) oom_macro_malloc(c, sz)
#define RO_SGNS_REALLOC(c, p, sz) oom_macro_realloc(c, p, sz)
#define RO_SGNS_FREE(c, p) oom_macro_free(c, p)
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"
#include "shard_comm.h"

#if defined(__unix__) || defined(__APPLE__)
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#define HAVE_POSIX 1
#define make_dir(p) mkdir(p, 0700)
#define remove_dir(p) rmdir(p)
#elif defined(_WIN32)
#include <direct.h>
#include <sys/stat.h>
#define make_dir(p) _mkdir(p)
#define remove_dir(p) _rmdir(p)
#endif

typedef ro_sgns_real real;
static const int IS_D = sizeof(real) == sizeof(double);
static int g_verbose = 0;
static int g_no_code = 99; /* no call returns it (an int: C++ warns about the constant) */

/* ------------------------------------------------ the counting allocator */

#define OOM_HDR 16 /* bytes in front of each block: its route */
#define TAG_MACRO 0x4d414352u
#define TAG_RUNTIME 0x52554e54u
#define TAG_FREED 0x46524545u

static struct {
    long calls;   /* allocations (malloc and realloc) since the sweep armed it */
    long fail_at; /* the one to fail, counted from 0; -1: none */
    int failed;   /* it came, and got NULL */
    long live;    /* blocks held */
    long wrong;   /* freed through the other route or twice, a wrong user pointer */
} g_oom = {0, -1, 0, 0, 0};
static int g_user; /* RA.user */
static ro_sgns_allocator RA;

static uint32_t oom_tag(const void *p)
{
    uint32_t t;
    memcpy(&t, (const unsigned char *)p - OOM_HDR, sizeof t);
    return t;
}

static void oom_set_tag(void *p, uint32_t t) { memcpy((unsigned char *)p - OOM_HDR, &t, sizeof t); }

static void *oom_alloc(uint32_t tag, void *old, size_t size)
{
    unsigned char *p;
    int fail = 0;
#ifdef _OPENMP
#pragma omp critical(oom_state)
#endif
    {
        if (g_oom.fail_at >= 0 && g_oom.calls == g_oom.fail_at) fail = g_oom.failed = 1;
        ++g_oom.calls;
        if (old && oom_tag(old) != tag) ++g_oom.wrong;
    }
    if (fail || size > (size_t)-1 - OOM_HDR) return NULL;
    p = (unsigned char *)realloc(old ? (unsigned char *)old - OOM_HDR : NULL, size + OOM_HDR);
    if (!p) return NULL;
    p += OOM_HDR;
    oom_set_tag(p, tag);
    if (!old) {
#ifdef _OPENMP
#pragma omp critical(oom_state)
#endif
        ++g_oom.live;
    }
    return p;
}

static void oom_release(uint32_t tag, void *p)
{
    uint32_t t;
    if (!p) return;
    t = oom_tag(p);
#ifdef _OPENMP
#pragma omp critical(oom_state)
#endif
    {
        if (t != tag) ++g_oom.wrong;
        if (t == TAG_MACRO || t == TAG_RUNTIME) --g_oom.live;
    }
    if (t != TAG_MACRO && t != TAG_RUNTIME) return; /* freed before: leave it */
    oom_set_tag(p, TAG_FREED);
    free((unsigned char *)p - OOM_HDR);
}

/* the macros: no runtime allocator is in play, so c is NULL */
static void *oom_macro_malloc(void *c, size_t size)
{
    if (c) ++g_oom.wrong;
    return oom_alloc(TAG_MACRO, NULL, size);
}
static void *oom_macro_realloc(void *c, void *p, size_t size)
{
    if (c) ++g_oom.wrong;
    return oom_alloc(TAG_MACRO, p, size);
}
static void oom_macro_free(void *c, void *p)
{
    if (c) ++g_oom.wrong;
    oom_release(TAG_MACRO, p);
}
/* the runtime allocator RA */
static void *ra_malloc(void *user, size_t size)
{
    if (user != &g_user) ++g_oom.wrong;
    return oom_alloc(TAG_RUNTIME, NULL, size);
}
static void *ra_realloc(void *user, void *p, size_t size)
{
    if (user != &g_user) ++g_oom.wrong;
    return oom_alloc(TAG_RUNTIME, p, size);
}
static void ra_free(void *user, void *p)
{
    if (user != &g_user) ++g_oom.wrong;
    oom_release(TAG_RUNTIME, p);
}

/* ------------------------------------------------------------ the sweep */

static ro_sgns_error g_err;
typedef ro_sgns_result (*call_fn)(void);
/* after a call: 1 when the caller's objects are as they must be after rc
   (untouched on failure, equal to the reference on success); frees what a
   successful call returned */
typedef int (*check_fn)(ro_sgns_result rc);

/* Fail allocation 0, 1, 2, ... of call() in turn, until it makes fewer;
   returns the number of allocations of a run without failure. */
static long sweep(const char *name, call_fn call, check_fn check, ro_sgns_result expect,
                  long min_allocs)
{
    long n, allocs = -1;
    int bad = 0, recovered = 0;
    for (n = 0; allocs < 0 && n < 100000; ++n) {
        long live0 = g_oom.live, wrong0 = g_oom.wrong;
        ro_sgns_result rc;
        const char *why = NULL;
        int hit;
        g_err.code = (ro_sgns_result)g_no_code;
        strcpy(g_err.message, "untouched");
        g_oom.calls = 0;
        g_oom.failed = 0;
        g_oom.fail_at = n;
        rc = call();
        g_oom.fail_at = -1;
        hit = g_oom.failed;
        if (!hit) allocs = g_oom.calls;
        if (hit && rc == expect && rc != RO_SGNS_ERR_OUT_OF_MEMORY)
            ++recovered; /* it did without that block: then its results must be right */
        else if (hit && rc != RO_SGNS_ERR_OUT_OF_MEMORY)
            why = "did not return RO_SGNS_ERR_OUT_OF_MEMORY";
        else if (!hit && rc != expect) why = "failed without an allocation failure";
        else if (hit && (g_err.code != rc || !g_err.message[0] ||
                         strcmp(g_err.message, "untouched") == 0))
            why = "err not filled in";
        else if (hit && rc != expect && g_oom.live != live0) why = "blocks left after the failed call";
        if (!check(rc) && !why) why = "the caller's objects are wrong";
        if (!why && g_oom.live != live0) why = "blocks left after freeing the outputs";
        if (!why && g_oom.wrong != wrong0) why = "a block freed through the wrong allocator";
        if (why) {
            if (bad < 3)
                fprintf(stderr, "%s: %s%ld of %ld allocations: %s (returned %s: %s)\n", name,
                        hit ? "failing allocation " : "no failure, ", n, g_oom.calls, why,
                        ro_sgns_result_string(rc), g_err.message);
            ++bad;
        }
        g_oom.live = live0; /* one report per leak */
        g_oom.wrong = wrong0;
    }
    CHECKF(bad == 0 && allocs >= 0, "%s: %d of %ld runs wrong", name, bad, n);
    CHECKF(allocs >= min_allocs, "%s: %ld allocations, expected at least %ld", name, allocs,
           min_allocs);
    if (g_verbose)
        printf("  %-46s %3ld allocations%s\n", name, allocs,
               recovered ? " (some failures recovered from)" : "");
    return allocs;
}

/* an entry point that needs no memory: one run, no allocation */
static void no_alloc(const char *name, void (*fn)(void))
{
    g_oom.calls = 0;
    fn();
    CHECKF(g_oom.calls == 0, "%s: %ld allocations, expected none", name, g_oom.calls);
}

/* ---------------------------------------------------------- helpers */

static char g_sentinel;
#define SENT ((void *)&g_sentinel)

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, len = 0, got;
    if (!f) return NULL;
    do {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            buf = (unsigned char *)realloc(buf, cap);
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
    } while (got > 0);
    fclose(f);
    *size = len;
    return buf;
}

static int write_all(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    return ok;
}

static int file_is(const char *path, const unsigned char *data, size_t size)
{
    size_t got = 0;
    unsigned char *b = read_all(path, &got);
    int same = b && got == size && memcmp(b, data, size) == 0;
    free(b);
    return same;
}

#ifdef HAVE_POSIX
/* A forked child's verdict: it exits 0 when what it checked held. Under
   valgrind (mk/cross.mk sets RO_SGNS_TEST_VALGRIND) the child's exit code
   is valgrind's: the heap it inherited from the parent is reported lost
   when it calls _exit, so only a normal exit is asked of it there; the
   parent's checks of the files still run. */
static int child_ok(int status)
{
    const char *vg = getenv("RO_SGNS_TEST_VALGRIND");
    if (!WIFEXITED(status)) return 0;
    return WEXITSTATUS(status) == 0 || (vg && *vg && strcmp(vg, "0") != 0);
}
#endif

static int file_exists(const char *path)
{
#ifdef HAVE_POSIX
    struct stat st;
    return lstat(path, &st) == 0; /* also a dangling link */
#elif defined(_WIN32)
    struct _stat st; /* fopen cannot open a directory there */
    return _stat(path, &st) == 0;
#else
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
#endif
}

/* How many temporary files of a save to path lie beside it ("<name>.<16
   hex digits>.tmp" in its folder); -1 where the folder cannot be listed
   (not POSIX). remove_them: delete them too. */
static int leftovers(const char *path, int remove_them)
{
#ifdef HAVE_POSIX
    char dir[600], name[600], full[1300];
    const char *slash = strrchr(path, '/');
    size_t nl;
    int count = 0;
    DIR *d;
    struct dirent *e;
    if (slash) {
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        snprintf(name, sizeof name, "%s.", slash + 1);
    } else {
        snprintf(dir, sizeof dir, ".");
        snprintf(name, sizeof name, "%s.", path);
    }
    nl = strlen(name);
    d = opendir(dir);
    if (!d) return -1;
    while ((e = readdir(d)) != NULL) {
        size_t el = strlen(e->d_name);
        if (el == nl + 20 && strncmp(e->d_name, name, nl) == 0 &&
            strcmp(e->d_name + el - 4, ".tmp") == 0) {
            ++count;
            snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
            if (remove_them) remove(full);
        }
    }
    closedir(d);
    return count;
#else
    (void)path;
    (void)remove_them;
    return -1;
#endif
}

/* No temporary file of a save to path is left (true where this cannot be
   seen). */
static int no_leftovers(const char *path) { return leftovers(path, 0) <= 0; }

/* a growing memory "file" for the write callbacks; fail_at: the write call
   that fails (-1: none); writes after a failure are counted */
typedef struct membuf {
    unsigned char *p;
    size_t len, cap, pos, chunk;
    long writes, fail_at, after_fail;
} membuf;

static int mb_write(void *user, const void *data, size_t size)
{
    membuf *m = (membuf *)user;
    if (m->fail_at >= 0 && m->writes > m->fail_at) ++m->after_fail;
    if (m->writes++ == m->fail_at) return 1;
    if (m->len + size > m->cap) {
        m->cap = 2 * (m->len + size) + 64;
        m->p = (unsigned char *)realloc(m->p, m->cap);
    }
    memcpy(m->p + m->len, data, size);
    m->len += size;
    return 0;
}

static size_t mb_read(void *user, void *data, size_t size)
{
    membuf *m = (membuf *)user;
    size_t n = m->len - m->pos;
    if (n > size) n = size;
    if (m->chunk && n > m->chunk) n = m->chunk; /* short reads on purpose */
    memcpy(data, m->p + m->pos, n);
    m->pos += n;
    return n;
}

static void mb_reset(membuf *m)
{
    m->len = m->pos = 0;
    m->writes = m->after_fail = 0;
    m->fail_at = -1;
}

static int same_bytes(const membuf *m, const unsigned char *ref, size_t size)
{
    return m->len == size && memcmp(m->p, ref, size) == 0;
}

/* ------------------------------------------------------------ the fixture */

/* the corpus: 60 lines of 14 words, every word frequent */
static const char *const WORDS[] = {"the",  "cat",   "sat", "on",    "mat",   "dog",   "ran",
                                    "far",  "king",  "queen", "man", "woman", "apple", "pear"};
#define NW 14
#define D 3

static char g_text[4096];
static size_t g_text_len;
static const char *P_CORPUS, *P_COUNTS, *P_FX, *P_VEC[3], *P_PAIRS, *P_QUEST, *P_OUT;
static ro_sgns_count_config g_cc, g_cc2;

static ro_sgns_counts *C0;      /* counts of the corpus (through RA) */
static unsigned char *C0_FILE;  /* ... as a counts file */
static size_t C0_SIZE;
static unsigned char *C2_FILE;  /* counts with sampling, word2vec windows and a budget */
static size_t C2_SIZE;
static ro_sgns_csr *A0;         /* SPPMI (macros) */
static ro_sgns_factors *X0;     /* its truncated SVD, d = 3 (RA) */
static unsigned char *X0_FILE;  /* ... as a checkpoint */
static size_t X0_SIZE;
static ro_sgns_problem *P0;     /* the problem of C0, k = 5 (RA) */
static real *W0, *CC0;          /* embeddings of X0, n x D */
static ro_sgns_vectors *V0;     /* words and W0 (RA) */
static unsigned char *V0_FILE[3]; /* V0 in each format */
static size_t V0_SIZE[3];
static ro_sgns_vectors *V0_READ[3]; /* V0_FILE read back */
static size_t g_n;

static const char PAIRS[] = "# word pairs\nthe cat 7.5\ndog cat 6\nKing queen 9\nman woman 8\n"
                            "apple pear 7\nsat mat 3.5\nran far 2\nzebra cat 1\non the 1.5\n";
static const char QUEST[] = ": royal\nman king woman queen\nking man queen woman\n"
                            "Man King Woman queen\n: food\napple pear cat dog\n"
                            "zebra cat dog mat\nsat on ran far\n";

static void make_corpus(void)
{
    uint64_t s = 12345;
    size_t line, w, len = 0;
    for (line = 0; line < 60; ++line) {
        size_t nw = 5 + line % 5;
        for (w = 0; w < nw; ++w) {
            const char *word;
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            word = WORDS[(s >> 33) % NW];
            len += (size_t)sprintf(g_text + len, "%s%s", w ? " " : "", word);
        }
        g_text[len++] = '\n';
    }
    g_text[len] = '\0';
    g_text_len = len;
}

static ro_sgns_tsvd_config tsvd_cfg(void)
{
    ro_sgns_tsvd_config t = ro_sgns_tsvd_config_default();
    t.oversample = 4;
    t.power_iters = 2;
    t.seed = 7;
    return t;
}

static ro_sgns_ro_config ro_cfg(void)
{
    ro_sgns_ro_config c = ro_sgns_ro_config_default();
    c.iterations = 2;
    return c;
}

static ro_sgns_sgd_config sgd_cfg(double sample)
{
    ro_sgns_sgd_config c = ro_sgns_sgd_config_default();
    c.size = 4;
    c.window = 2;
    c.negative = 2;
    c.epochs = 1;
    c.threads = 1;
    c.seed = 3;
    c.sample = sample;
    c.report_words = 0;
    return c;
}

static int fx_equal(const ro_sgns_factors *a, const ro_sgns_factors *b)
{
    return a->n == b->n && a->m == b->m && a->d == b->d && a->iteration == b->iteration &&
           memcmp(&a->next_step, &b->next_step, sizeof(double)) == 0 &&
           memcmp(a->U, b->U, a->n * a->d * sizeof(real)) == 0 &&
           memcmp(a->V, b->V, a->m * a->d * sizeof(real)) == 0 &&
           memcmp(a->S, b->S, a->d * a->d * sizeof(real)) == 0;
}

static void fx_copy(ro_sgns_factors *to, const ro_sgns_factors *from)
{
    memcpy(to->U, from->U, from->n * from->d * sizeof(real));
    memcpy(to->V, from->V, from->m * from->d * sizeof(real));
    memcpy(to->S, from->S, from->d * from->d * sizeof(real));
    to->iteration = from->iteration;
    to->next_step = from->next_step;
}

static int csr_equal(const ro_sgns_csr *a, const ro_sgns_csr *b)
{
    return a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz &&
           memcmp(a->row_ptr, b->row_ptr, (a->rows + 1) * sizeof(uint64_t)) == 0 &&
           memcmp(a->col, b->col, (size_t)a->nnz * sizeof(uint32_t)) == 0 &&
           memcmp(a->val, b->val, (size_t)a->nnz * sizeof(real)) == 0;
}

static int vec_equal(const ro_sgns_vectors *a, const ro_sgns_vectors *b)
{
    size_t i;
    if (a->n != b->n || a->d != b->d) return 0;
    for (i = 0; i < a->n; ++i)
        if (strcmp(a->words[i], b->words[i]) != 0) return 0;
    return memcmp(a->data, b->data, a->n * a->d * sizeof(real)) == 0;
}

static int counts_are(const ro_sgns_counts *c, const unsigned char *file, size_t size)
{
    void *b = NULL;
    size_t got = 0;
    int same;
    if ((size_t)ro_sgns_counts_saved_size(c) != size) return 0;
    same = ro_sgns_counts_save_memory(c, &b, &got, NULL, NULL) == RO_SGNS_OK && got == size &&
           memcmp(b, file, size) == 0;
    oom_macro_free(NULL, b);
    return same;
}

static int filled(const void *p, size_t size, unsigned char byte)
{
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < size; ++i)
        if (b[i] != byte) return 0;
    return 1;
}

/* an input that must never change: a copy to compare with */
static ro_sgns_factors *X0_COPY;
static int inputs_intact(void)
{
    return fx_equal(X0, X0_COPY) && vec_equal(V0, V0_READ[0]);
}

/* ==================================================== A. dense algebra */

#define GM 40
#define GN 20
#define GK 30
static real g_A[GM * GK], g_B[GK * GN], g_C[GM * GN], g_Cref[GM * GN], g_Cin[GM * GN];
static real g_Q[GM * 6], g_Qin[GM * 6], g_Qref[GM * 6], g_R[36], g_Rref[36];
static real g_U[GM * 6], g_s[6], g_V[36], g_Uref[GM * 6], g_sref[6], g_Vref[36];

static ro_sgns_result c_gemm(void)
{
    memcpy(g_C, g_Cin, sizeof g_C);
    return ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, GM, GN, GK, (real)0.5, g_A, GK, g_B, GK,
                        (real)2, g_C, GN, &RA, &g_err);
}
static ro_sgns_result c_gemm_builtin(void)
{
    memcpy(g_C, g_Cin, sizeof g_C);
    return ro_sgns_gemm_builtin(RO_SGNS_NOTRANS, RO_SGNS_TRANS, GM, GN, GK, (real)0.5, g_A, GK,
                                g_B, GK, (real)2, g_C, GN, NULL, &g_err);
}
static int k_gemm(ro_sgns_result rc)
{
    return memcmp(g_C, rc == RO_SGNS_OK ? g_Cref : g_Cin, sizeof g_C) == 0;
}

static ro_sgns_result c_qr(void)
{
    memcpy(g_Q, g_Qin, sizeof g_Q);
    memset(g_R, 0x5a, sizeof g_R);
    return ro_sgns_qr(GM, 6, g_Q, 6, g_R, 6, &RA, &g_err);
}
static ro_sgns_result c_qr_builtin(void)
{
    memcpy(g_Q, g_Qin, sizeof g_Q);
    memset(g_R, 0x5a, sizeof g_R);
    return ro_sgns_qr_builtin(GM, 6, g_Q, 6, g_R, 6, NULL, &g_err);
}
/* Part I's QR: its own reference (other bits than the blocked one) */
static real g_Qnref[GM * 6], g_Rnref[36];
static ro_sgns_result c_qr_naive(void)
{
    memcpy(g_Q, g_Qin, sizeof g_Q);
    memset(g_R, 0x5a, sizeof g_R);
    return ro_sgns_qr_naive(GM, 6, g_Q, 6, g_R, 6, &RA, &g_err);
}
static int k_qr_naive(ro_sgns_result rc)
{
    if (rc == RO_SGNS_OK)
        return memcmp(g_Q, g_Qnref, sizeof g_Q) == 0 && memcmp(g_R, g_Rnref, sizeof g_R) == 0;
    return memcmp(g_Q, g_Qin, sizeof g_Q) == 0 && filled(g_R, sizeof g_R, 0x5a);
}
static int k_qr(ro_sgns_result rc)
{
    if (rc == RO_SGNS_OK)
        return memcmp(g_Q, g_Qref, sizeof g_Q) == 0 && memcmp(g_R, g_Rref, sizeof g_R) == 0;
    return memcmp(g_Q, g_Qin, sizeof g_Q) == 0 && filled(g_R, sizeof g_R, 0x5a);
}

static ro_sgns_result c_svd(void)
{
    memset(g_U, 0x5a, sizeof g_U);
    memset(g_s, 0x5a, sizeof g_s);
    memset(g_V, 0x5a, sizeof g_V);
    return ro_sgns_svd(GM, 6, g_Qin, 6, g_U, 6, g_s, g_V, 6, &RA, &g_err);
}
static ro_sgns_result c_svd_builtin(void)
{
    memset(g_U, 0x5a, sizeof g_U);
    memset(g_s, 0x5a, sizeof g_s);
    memset(g_V, 0x5a, sizeof g_V);
    return ro_sgns_svd_builtin(GM, 6, g_Qin, 6, g_U, 6, g_s, g_V, 6, NULL, &g_err);
}
static ro_sgns_result c_svd_naive(void)
{
    memset(g_U, 0x5a, sizeof g_U);
    memset(g_s, 0x5a, sizeof g_s);
    memset(g_V, 0x5a, sizeof g_V);
    return ro_sgns_svd_naive(GM, 6, g_Qin, 6, g_U, 6, g_s, g_V, 6, &RA, &g_err);
}
static int k_svd(ro_sgns_result rc)
{
    if (rc == RO_SGNS_OK)
        return memcmp(g_U, g_Uref, sizeof g_U) == 0 && memcmp(g_s, g_sref, sizeof g_s) == 0 &&
               memcmp(g_V, g_Vref, sizeof g_V) == 0;
    return filled(g_U, sizeof g_U, 0x5a) && filled(g_s, sizeof g_s, 0x5a) &&
           filled(g_V, sizeof g_V, 0x5a);
}

static void test_linalg(void)
{
    ro_sgns_rng rng;
    size_t i;
    ro_sgns_rng_seed(&rng, 99, 0);
    for (i = 0; i < GM * GK; ++i) g_A[i] = (real)ro_sgns_rng_normal(&rng);
    for (i = 0; i < GK * GN; ++i) g_B[i] = (real)ro_sgns_rng_normal(&rng);
    for (i = 0; i < GM * GN; ++i) g_Cin[i] = (real)ro_sgns_rng_normal(&rng);
    for (i = 0; i < GM * 6; ++i) g_Qin[i] = (real)ro_sgns_rng_normal(&rng);
    /* the references: the same calls without failures */
    CHECK(c_gemm() == RO_SGNS_OK);
    memcpy(g_Cref, g_C, sizeof g_C);
    CHECK(c_qr() == RO_SGNS_OK);
    memcpy(g_Qref, g_Q, sizeof g_Q);
    memcpy(g_Rref, g_R, sizeof g_R);
    CHECK(c_svd() == RO_SGNS_OK);
    memcpy(g_Uref, g_U, sizeof g_U);
    memcpy(g_sref, g_s, sizeof g_s);
    memcpy(g_Vref, g_V, sizeof g_V);
    /* with CBLAS/LAPACKE the routed calls may take nothing from us */
    sweep("ro_sgns_gemm", c_gemm, k_gemm, RO_SGNS_OK, 0);
    sweep("ro_sgns_qr", c_qr, k_qr, RO_SGNS_OK, 0);
    sweep("ro_sgns_svd", c_svd, k_svd, RO_SGNS_OK, 0);
    CHECK(c_qr_naive() == RO_SGNS_OK);
    memcpy(g_Qnref, g_Q, sizeof g_Q);
    memcpy(g_Rnref, g_R, sizeof g_R);
    sweep("ro_sgns_qr_naive", c_qr_naive, k_qr_naive, RO_SGNS_OK, 1);
    /* the built-in ones match the routed ones only without CBLAS/LAPACKE */
#if !defined(RO_SGNS_USE_CBLAS) && !defined(RO_SGNS_USE_LAPACKE)
    sweep("ro_sgns_gemm_builtin", c_gemm_builtin, k_gemm, RO_SGNS_OK, 1);
    sweep("ro_sgns_qr_builtin", c_qr_builtin, k_qr, RO_SGNS_OK, 1);
    sweep("ro_sgns_svd_builtin", c_svd_builtin, k_svd, RO_SGNS_OK, 1);
#else
    CHECK(c_gemm_builtin() == RO_SGNS_OK);
    CHECK(c_qr_builtin() == RO_SGNS_OK);
    CHECK(c_svd_builtin() == RO_SGNS_OK);
#endif
    /* Part I's plain SVD: its own bits, its own reference */
    CHECK(c_svd_naive() == RO_SGNS_OK);
    memcpy(g_Uref, g_U, sizeof g_U);
    memcpy(g_sref, g_s, sizeof g_s);
    memcpy(g_Vref, g_V, sizeof g_V);
    sweep("ro_sgns_svd_naive", c_svd_naive, k_svd, RO_SGNS_OK, 1);
}

/* ======================================================== 1. counting */

static ro_sgns_counts *g_counts;
static FILE *g_corpus_file;
static membuf g_mb;

static ro_sgns_result c_count_memory(void)
{
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_count_memory(g_text, g_text_len, &g_cc, &g_counts, &RA, &g_err);
}
static ro_sgns_result c_count_memory2(void)
{
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_count_memory(g_text, g_text_len, &g_cc2, &g_counts, NULL, &g_err);
}
static ro_sgns_result c_count_callback(void)
{
    membuf r;
    memset(&r, 0, sizeof r);
    r.p = (unsigned char *)g_text;
    r.len = g_text_len;
    r.chunk = 37;
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_count_callback(mb_read, &r, &g_cc, &g_counts, &RA, &g_err);
}
static ro_sgns_result c_count_file(void)
{
    rewind(g_corpus_file);
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_count_file(g_corpus_file, &g_cc, &g_counts, NULL, &g_err);
}
static ro_sgns_result c_count_path(void)
{
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_count_path(P_CORPUS, &g_cc, &g_counts, &RA, &g_err);
}
static int k_counts_as(ro_sgns_result rc, const unsigned char *file, size_t size)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_counts == (ro_sgns_counts *)SENT;
    ok = g_counts != (ro_sgns_counts *)SENT && counts_are(g_counts, file, size);
    if (g_counts != (ro_sgns_counts *)SENT) ro_sgns_counts_free(g_counts);
    return ok;
}
static int k_counts(ro_sgns_result rc) { return k_counts_as(rc, C0_FILE, C0_SIZE); }
static int k_counts2(ro_sgns_result rc) { return k_counts_as(rc, C2_FILE, C2_SIZE); }

/* rows [R0, R1) of C0: the vocabulary and marginals whole, the pairs of
   those rows */
#define R0 2
#define R1 7
static int rows_are(const ro_sgns_counts *c, const ro_sgns_counts *w, size_t r0, size_t r1)
{
    uint64_t base = w->row_ptr[r0], nnz = w->row_ptr[r1] - base;
    size_t i;
    if (c->n != w->n || c->row_begin != r0 || c->row_end != r1 || c->nnz != nnz ||
        c->total != w->total)
        return 0;
    for (i = 0; i < w->n; ++i)
        if (c->vocab.len[i] != w->vocab.len[i] || strcmp(c->vocab.word[i], w->vocab.word[i]) ||
            c->vocab.count[i] != w->vocab.count[i] || c->word_count[i] != w->word_count[i] ||
            c->ctx_count[i] != w->ctx_count[i])
            return 0;
    for (i = 0; i <= r1 - r0; ++i)
        if (c->row_ptr[i] != w->row_ptr[r0 + i] - base) return 0;
    return nnz == 0 || (memcmp(c->col, w->col + base, (size_t)nnz * sizeof *c->col) == 0 &&
                        memcmp(c->val, w->val + base, (size_t)nnz * sizeof *c->val) == 0);
}
static ro_sgns_result c_counts_load_rows_memory(void)
{
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_counts_load_rows_memory(C0_FILE, C0_SIZE, R0, R1, &g_counts, &RA, &g_err);
}
static ro_sgns_result c_counts_load_rows_file(void)
{
    FILE *f = fopen(P_COUNTS, "rb");
    ro_sgns_result rc;
    g_counts = (ro_sgns_counts *)SENT;
    if (!f) return RO_SGNS_ERR_IO;
    rc = ro_sgns_counts_load_rows_file(f, R0, R1, &g_counts, NULL, &g_err);
    fclose(f);
    return rc;
}
static ro_sgns_result c_counts_load_rows_path(void)
{
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_counts_load_rows_path(P_COUNTS, R0, R1, &g_counts, &RA, &g_err);
}
static int k_rows(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_counts == (ro_sgns_counts *)SENT;
    ok = g_counts != (ro_sgns_counts *)SENT && rows_are(g_counts, C0, R0, R1);
    if (g_counts != (ro_sgns_counts *)SENT) ro_sgns_counts_free(g_counts);
    return ok;
}
/* C0 merged with itself: its words, every pair and the total twice */
static ro_sgns_result c_counts_merge(void)
{
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_counts_merge(C0, C0, 1, 0, &g_counts, NULL, &RA, &g_err);
}
static int k_counts_merge(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_counts == (ro_sgns_counts *)SENT;
    ok = g_counts != (ro_sgns_counts *)SENT && g_counts->n == C0->n &&
         g_counts->nnz == C0->nnz && g_counts->total == 2 * C0->total;
    if (g_counts != (ro_sgns_counts *)SENT) ro_sgns_counts_free(g_counts);
    return ok;
}
static void *g_saved;
static size_t g_saved_size;
static ro_sgns_result c_counts_save_memory(void)
{
    g_saved = SENT;
    g_saved_size = 12345;
    return ro_sgns_counts_save_memory(C0, &g_saved, &g_saved_size, &RA, &g_err);
}
static int k_counts_save_memory(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_saved == SENT && g_saved_size == 12345;
    ok = g_saved_size == C0_SIZE && memcmp(g_saved, C0_FILE, C0_SIZE) == 0;
    RA.free_fn(RA.user, g_saved); /* "the matching free" */
    return ok;
}
static ro_sgns_result c_counts_save_callback(void)
{
    mb_reset(&g_mb);
    return ro_sgns_counts_save_callback(C0, mb_write, &g_mb, &g_err);
}
static int k_counts_saved(ro_sgns_result rc)
{
    return rc == RO_SGNS_OK ? same_bytes(&g_mb, C0_FILE, C0_SIZE) : g_mb.len == 0;
}

static ro_sgns_result c_counts_load_memory(void)
{
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_counts_load_memory(C0_FILE, C0_SIZE, &g_counts, NULL, &g_err);
}
/* a counts file through the read callback, in reads of at most chunk bytes */
static ro_sgns_result counts_load_callback_of(unsigned char *file, size_t size, size_t chunk)
{
    membuf r;
    memset(&r, 0, sizeof r);
    r.p = file;
    r.len = size;
    r.chunk = chunk;
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_counts_load_callback(mb_read, &r, &g_counts, &RA, &g_err);
}
static ro_sgns_result c_counts_load_callback(void)
{
    return counts_load_callback_of(C0_FILE, C0_SIZE, 100);
}
static ro_sgns_result c_counts_load_path(void)
{
    g_counts = (ro_sgns_counts *)SENT;
    return ro_sgns_counts_load_path(P_COUNTS, &g_counts, &RA, &g_err);
}
/* counts whose pairs outgrow a stream load's first arrays (4096 entries)
   in one 64 KiB chunk: a failed growth must free what the array held */
static unsigned char *C3_FILE;
static size_t C3_SIZE;
static ro_sgns_result c_counts_load_callback_grown(void)
{
    return counts_load_callback_of(C3_FILE, C3_SIZE, 1000);
}
static int k_counts3(ro_sgns_result rc) { return k_counts_as(rc, C3_FILE, C3_SIZE); }
static void make_c3(void)
{
    static char text[24000];
    size_t i, len = 0;
    uint64_t s = 99;
    ro_sgns_counts *c = NULL;
    void *buf = NULL;
    for (i = 0; i < 4000; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        len += (size_t)sprintf(text + len, "w%u ", (unsigned)((s >> 33) % 70));
    }
    CHECK(ro_sgns_count_memory(text, len, &g_cc, &c, NULL, &g_err) == RO_SGNS_OK);
    if (!c) return;
    CHECK(c->nnz > 4096);
    CHECK(ro_sgns_counts_save_memory(c, &buf, &C3_SIZE, NULL, &g_err) == RO_SGNS_OK);
    CHECK(C3_SIZE <= 65536);
    C3_FILE = (unsigned char *)malloc(C3_SIZE);
    if (buf) memcpy(C3_FILE, buf, C3_SIZE);
    oom_macro_free(NULL, buf);
    ro_sgns_counts_free(c);
}

/* saving over an existing file: the old bytes stay until the new file is complete */
static const unsigned char OLD[] = "the old file, which a failed save must leave as it was\n";
static int old_in_place(void) { return write_all(P_OUT, OLD, sizeof OLD); }
static int k_saved_over(ro_sgns_result rc, const unsigned char *ref, size_t size)
{
    int ok = rc == RO_SGNS_OK ? file_is(P_OUT, ref, size) : file_is(P_OUT, OLD, sizeof OLD);
    return ok && no_leftovers(P_OUT);
}
static ro_sgns_result c_counts_save_path(void)
{
    if (!old_in_place()) return RO_SGNS_ERR_IO;
    return ro_sgns_counts_save_path(C0, P_OUT, &g_err);
}
static int k_counts_save_path(ro_sgns_result rc) { return k_saved_over(rc, C0_FILE, C0_SIZE); }
static ro_sgns_result c_check_output_path(void)
{
    if (!old_in_place()) return RO_SGNS_ERR_IO;
    return ro_sgns_check_output_path(P_OUT, &g_err);
}
static int k_check_output_path(ro_sgns_result rc)
{
    (void)rc;
    return file_is(P_OUT, OLD, sizeof OLD) && no_leftovers(P_OUT);
}


static void test_counting(void)
{
    ro_sgns_counts *c = NULL;
    void *buf = NULL;
    uint64_t lo = 256, hi;
    CHECK(ro_sgns_count_memory(g_text, g_text_len, &g_cc2, &c, NULL, &g_err) == RO_SGNS_OK);
    if (!c) return;
    /* the tightest budget that works (a budgeted count takes more passes) */
    hi = c->peak_bytes;
    while (hi - lo > 64) {
        uint64_t mid = lo + (hi - lo) / 2;
        ro_sgns_counts *t = NULL;
        g_cc2.memory_budget = mid;
        if (ro_sgns_count_memory(g_text, g_text_len, &g_cc2, &t, NULL, &g_err) == RO_SGNS_OK) {
            hi = mid;
            ro_sgns_counts_free(t);
        } else {
            lo = mid;
        }
    }
    g_cc2.memory_budget = hi;
    ro_sgns_counts_free(c);
    c = NULL;
    CHECK(ro_sgns_count_memory(g_text, g_text_len, &g_cc2, &c, NULL, &g_err) == RO_SGNS_OK);
    if (!c) return;
    CHECK(ro_sgns_counts_save_memory(c, &buf, &C2_SIZE, NULL, &g_err) == RO_SGNS_OK);
    C2_FILE = (unsigned char *)malloc(C2_SIZE);
    if (buf) memcpy(C2_FILE, buf, C2_SIZE);
    oom_macro_free(NULL, buf);
    ro_sgns_counts_free(c);

    sweep("ro_sgns_count_memory", c_count_memory, k_counts, RO_SGNS_OK, 5);
    sweep("ro_sgns_count_memory (sample, budget)", c_count_memory2, k_counts2, RO_SGNS_OK, 5);
    sweep("ro_sgns_count_callback", c_count_callback, k_counts, RO_SGNS_OK, 5);
    sweep("ro_sgns_count_file", c_count_file, k_counts, RO_SGNS_OK, 5);
    sweep("ro_sgns_count_path", c_count_path, k_counts, RO_SGNS_OK, 5);
    sweep("ro_sgns_counts_save_memory", c_counts_save_memory, k_counts_save_memory, RO_SGNS_OK, 1);
    sweep("ro_sgns_counts_save_callback", c_counts_save_callback, k_counts_saved, RO_SGNS_OK, 0);
    sweep("ro_sgns_counts_load_memory", c_counts_load_memory, k_counts, RO_SGNS_OK, 5);
    sweep("ro_sgns_counts_load_callback", c_counts_load_callback, k_counts, RO_SGNS_OK, 5);
    sweep("ro_sgns_counts_load_path", c_counts_load_path, k_counts, RO_SGNS_OK, 5);
    make_c3();
    if (C3_FILE)
        sweep("ro_sgns_counts_load_callback (grown)", c_counts_load_callback_grown, k_counts3,
              RO_SGNS_OK, 5);
    sweep("ro_sgns_counts_save_path", c_counts_save_path, k_counts_save_path, RO_SGNS_OK, 1);
    sweep("ro_sgns_counts_load_rows_memory", c_counts_load_rows_memory, k_rows, RO_SGNS_OK, 5);
    sweep("ro_sgns_counts_load_rows_file", c_counts_load_rows_file, k_rows, RO_SGNS_OK, 5);
    sweep("ro_sgns_counts_load_rows_path", c_counts_load_rows_path, k_rows, RO_SGNS_OK, 5);
    sweep("ro_sgns_counts_merge", c_counts_merge, k_counts_merge, RO_SGNS_OK, 5);
    sweep("ro_sgns_check_output_path", c_check_output_path, k_check_output_path, RO_SGNS_OK, 1);
}

/* ==================================================== 2. SPPMI, SVD */

static ro_sgns_csr *g_csr, *A0_T, *A0_S;
static ro_sgns_factors *g_fx;
static real *g_out, *g_ref;
static size_t g_out_len;

static ro_sgns_result c_csr_create(void)
{
    g_csr = (ro_sgns_csr *)SENT;
    return ro_sgns_csr_create(5, 4, 7, &g_csr, &RA, &g_err);
}
static int k_csr_create(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_csr == (ro_sgns_csr *)SENT;
    ok = g_csr->rows == 5 && g_csr->cols == 4 && g_csr->row_ptr[5] == 0;
    ro_sgns_csr_free(g_csr);
    return ok;
}
static ro_sgns_result c_csr_transpose(void)
{
    g_csr = (ro_sgns_csr *)SENT;
    return ro_sgns_csr_transpose(A0, &g_csr, NULL, &g_err);
}
static int k_csr_as(ro_sgns_result rc, const ro_sgns_csr *ref)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_csr == (ro_sgns_csr *)SENT;
    ok = csr_equal(g_csr, ref);
    ro_sgns_csr_free(g_csr);
    return ok;
}
static int k_csr_transpose(ro_sgns_result rc) { return k_csr_as(rc, A0_T); }
static ro_sgns_result c_sppmi(void)
{
    g_csr = (ro_sgns_csr *)SENT;
    return ro_sgns_sppmi(C0, 1.0, 0.75, &g_csr, &RA, &g_err);
}
static int k_sppmi(ro_sgns_result rc) { return k_csr_as(rc, A0_S); }
static ro_sgns_result c_csr_mm(void)
{
    return ro_sgns_csr_mm(A0, D, W0, D, g_out, D, &g_err);
}
static int k_csr_mm(ro_sgns_result rc)
{
    return rc == RO_SGNS_OK && memcmp(g_out, g_ref, g_n * D * sizeof(real)) == 0;
}

static ro_sgns_result c_factors_create(void)
{
    g_fx = (ro_sgns_factors *)SENT;
    return ro_sgns_factors_create(9, 7, 2, &g_fx, &RA, &g_err);
}
static int k_factors_create(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_fx == (ro_sgns_factors *)SENT;
    ok = g_fx->n == 9 && g_fx->m == 7 && g_fx->d == 2 && g_fx->U && g_fx->S && g_fx->V;
    ro_sgns_factors_free(g_fx);
    return ok;
}
static ro_sgns_result c_tsvd(void)
{
    ro_sgns_tsvd_config t = tsvd_cfg();
    g_fx = (ro_sgns_factors *)SENT;
    return ro_sgns_tsvd(A0, D, &t, &g_fx, &RA, &g_err);
}
static int k_fx_as(ro_sgns_result rc, const ro_sgns_factors *ref)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_fx == (ro_sgns_factors *)SENT && inputs_intact();
    ok = g_fx != (ro_sgns_factors *)SENT && fx_equal(g_fx, ref);
    if (g_fx != (ro_sgns_factors *)SENT) ro_sgns_factors_free(g_fx);
    return ok && inputs_intact();
}
static int k_tsvd(ro_sgns_result rc) { return k_fx_as(rc, X0); }
static ro_sgns_factors *TSVD_NAIVE; /* Part I's dense SVD of A0, its reference */
static ro_sgns_result c_tsvd_naive(void)
{
    g_fx = (ro_sgns_factors *)SENT;
    return ro_sgns_tsvd_naive(A0, D, &g_fx, &RA, &g_err);
}
static int k_tsvd_naive(ro_sgns_result rc) { return k_fx_as(rc, TSVD_NAIVE); }

static ro_sgns_result c_embeddings(void)
{
    memset(g_out, 0x5a, g_out_len * sizeof(real));
    return ro_sgns_factors_embeddings(X0, 0.5, RO_SGNS_EMBED_W_PLUS_C, g_out, D, &RA, &g_err);
}
static ro_sgns_result c_embeddings_macros(void)
{
    memset(g_out, 0x5a, g_out_len * sizeof(real));
    return ro_sgns_factors_embeddings(X0, 0.5, RO_SGNS_EMBED_W, g_out, D, NULL, &g_err);
}
static int k_out(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK) return filled(g_out, g_out_len * sizeof(real), 0x5a) && inputs_intact();
    return memcmp(g_out, g_ref, g_out_len * sizeof(real)) == 0 && inputs_intact();
}

static void test_sppmi_svd(void)
{
    size_t n = g_n;
    ro_sgns_tsvd_config t = tsvd_cfg();
    ro_sgns_factors *x = NULL;
    CHECK(ro_sgns_csr_transpose(A0, &A0_T, NULL, &g_err) == RO_SGNS_OK);
    CHECK(ro_sgns_sppmi(C0, 1.0, 0.75, &A0_S, NULL, &g_err) == RO_SGNS_OK);
    CHECK(ro_sgns_tsvd(A0, D, &t, &x, NULL, &g_err) == RO_SGNS_OK);
    CHECK(x && fx_equal(x, X0)); /* the same bits again */
    ro_sgns_factors_free(x);
    sweep("ro_sgns_csr_create", c_csr_create, k_csr_create, RO_SGNS_OK, 1);
    sweep("ro_sgns_csr_transpose", c_csr_transpose, k_csr_transpose, RO_SGNS_OK, 1);
    sweep("ro_sgns_sppmi", c_sppmi, k_sppmi, RO_SGNS_OK, 1);
    g_out_len = n * D;
    CHECK(ro_sgns_csr_mm(A0, D, W0, D, g_ref, D, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_csr_mm", c_csr_mm, k_csr_mm, RO_SGNS_OK, 0);
    sweep("ro_sgns_factors_create", c_factors_create, k_factors_create, RO_SGNS_OK, 1);
    sweep("ro_sgns_tsvd", c_tsvd, k_tsvd, RO_SGNS_OK, 1);
    CHECK(ro_sgns_tsvd_naive(A0, D, &TSVD_NAIVE, NULL, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_tsvd_naive", c_tsvd_naive, k_tsvd_naive, RO_SGNS_OK, 1);
    ro_sgns_factors_free(TSVD_NAIVE);
    CHECK(c_embeddings() == RO_SGNS_OK);
    memcpy(g_ref, g_out, n * D * sizeof(real));
    sweep("ro_sgns_factors_embeddings", c_embeddings, k_out, RO_SGNS_OK, 1);
    CHECK(c_embeddings_macros() == RO_SGNS_OK);
    memcpy(g_ref, g_out, n * D * sizeof(real));
    sweep("ro_sgns_factors_embeddings (macros)", c_embeddings_macros, k_out, RO_SGNS_OK, 1);
    ro_sgns_csr_free(A0_T);
    ro_sgns_csr_free(A0_S);
}

/* ============================== 3-4. objective, RO step, checkpoints */

static ro_sgns_problem *g_problem;
static double g_F, g_Fref;
static ro_sgns_factors *XW;       /* the point ro_sgns_ro_train updates */
static ro_sgns_factors *SNAP[3];  /* the reference run: X0 and after steps 1 and 2 */
static int g_advanced;            /* failed runs that kept a step already taken */

static ro_sgns_result c_problem_create(void)
{
    g_problem = (ro_sgns_problem *)SENT;
    return ro_sgns_problem_create(C0, 5, 1.0, &g_problem, &RA, &g_err);
}
static ro_sgns_result c_problem_create_csr(void)
{
    g_problem = (ro_sgns_problem *)SENT;
    return ro_sgns_problem_create_csr(C0->n, C0->n, C0->row_ptr, C0->col, C0->val, 5, 1.0, &g_problem,
                                      NULL, &g_err);
}
static ro_sgns_result c_problem_create_naive(void)
{
    g_problem = (ro_sgns_problem *)SENT;
    return ro_sgns_problem_create_naive(C0->n, C0->n, C0->row_ptr, C0->col, C0->val, 5, &g_problem,
                                        &RA, &g_err);
}
static int k_problem(ro_sgns_result rc)
{
    double F = 0;
    int ok;
    if (rc != RO_SGNS_OK) return g_problem == (ro_sgns_problem *)SENT;
    ok = ro_sgns_objective(g_problem, X0, &F, NULL) == RO_SGNS_OK &&
         memcmp(&F, &g_Fref, sizeof F) == 0;
    ro_sgns_problem_free(g_problem);
    return ok;
}
static ro_sgns_result c_objective(void)
{
    g_F = -777;
    return ro_sgns_objective(P0, X0, &g_F, &g_err);
}
static int k_F(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK) return g_F == -777 && inputs_intact();
    return memcmp(&g_F, &g_Fref, sizeof g_F) == 0 && inputs_intact();
}
static double g_Fnref; /* Part I's F: other bits than the sweep's */
static ro_sgns_result c_objective_naive(void)
{
    g_F = -777;
    return ro_sgns_objective_naive(P0, X0, &g_F, &g_err);
}
static int k_F_naive(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK) return g_F == -777 && inputs_intact();
    return memcmp(&g_F, &g_Fnref, sizeof g_F) == 0 && inputs_intact();
}
static ro_sgns_result c_objective_wc(void)
{
    g_F = -777;
    return ro_sgns_objective_wc(P0, W0, CC0, D, &g_F, &g_err);
}
static ro_sgns_result c_direction_dense(void)
{
    memset(g_out, 0x5a, g_out_len * sizeof(real));
    return ro_sgns_direction_dense(P0, X0, RO_SGNS_DIRECTION_SCALED, g_out, &g_err);
}
static int snap_step(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    (void)user;
    if (pr->iteration - X0->iteration <= 2) fx_copy(SNAP[pr->iteration - X0->iteration], x);
    return 0;
}
static size_t g_keep_bytes; /* ro_train's keep_direction_bytes */
static ro_sgns_direction g_dir = RO_SGNS_DIRECTION_SCALED; /* and its direction */
static double g_tn, g_tnref;  /* ro_sgns_tangent_norm's */
static ro_sgns_result c_tangent_norm(void)
{
    g_tn = -777;
    return ro_sgns_tangent_norm(P0, X0, RO_SGNS_DIRECTION_PLAIN, &g_tn, &g_err);
}
static int k_tangent_norm(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK) return g_tn == -777 && inputs_intact();
    return memcmp(&g_tn, &g_tnref, sizeof g_tn) == 0 && inputs_intact();
}
static ro_sgns_result c_ro_train(void)
{
    ro_sgns_ro_config cfg = ro_cfg();
    cfg.keep_direction_bytes = g_keep_bytes;
    cfg.direction = g_dir;
    fx_copy(XW, X0);
    return ro_sgns_ro_train(P0, XW, &cfg, &g_err);
}
static int k_ro_train(ro_sgns_result rc)
{
    uint64_t k = XW->iteration - X0->iteration;
    if (rc == RO_SGNS_OK) return k == 2 && fx_equal(XW, SNAP[2]) && inputs_intact();
    /* a failure in step 2 keeps step 1, like RO_SGNS_ERR_NUMERIC does: the
       point is always one of the iterates, never a mix */
    if (k > 0) ++g_advanced;
    return k < 2 && fx_equal(XW, SNAP[k]) && inputs_intact();
}
/* the step's time measured on a small problem (its own size): the rate
   and seconds written on success only */
static double g_rate, g_secs;
static ro_sgns_result c_estimate_step(void)
{
    g_rate = 0;
    g_secs = -1;
    return ro_sgns_estimate_step_seconds(40, 30, 3, &g_rate, &g_secs, &RA, &g_err);
}
static int k_estimate_step(ro_sgns_result rc)
{
    if (rc == RO_SGNS_OK) return g_rate > 0 && g_secs > 0;
    return g_rate == 0 && g_secs == -1;
}
/* the dense reference step from X0: one step at the default step size */
static ro_sgns_factors *NAIVE1;
static ro_sgns_result c_ro_step_naive(void)
{
    fx_copy(XW, X0);
    return ro_sgns_ro_step_naive(P0, XW, RO_SGNS_DIRECTION_SCALED, 1.0, &g_err);
}
static int k_ro_step_naive(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK) return fx_equal(XW, X0) && inputs_intact();
    return fx_equal(XW, NAIVE1) && inputs_intact();
}
/* Part I's start and step loop from P0: X0's SPPMI again, and one step */
static ro_sgns_factors *START_NAIVE, *TRAIN_NAIVE1;
static ro_sgns_result c_start_naive(void)
{
    g_fx = (ro_sgns_factors *)SENT;
    return ro_sgns_start_naive(P0, D, &g_fx, &g_err);
}
static int k_start_naive(ro_sgns_result rc) { return k_fx_as(rc, START_NAIVE); }
static ro_sgns_result c_ro_train_naive(void)
{
    double F[2];
    fx_copy(XW, X0);
    return ro_sgns_ro_train_naive(P0, XW, RO_SGNS_DIRECTION_SCALED, 1.0, 1, F, &g_err);
}
static int k_ro_train_naive(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK) return fx_equal(XW, X0) && inputs_intact();
    return fx_equal(XW, TRAIN_NAIVE1) && inputs_intact();
}
static ro_sgns_result c_embeddings_naive(void)
{
    memset(g_out, 0x5a, g_out_len * sizeof(real));
    return ro_sgns_factors_embeddings_naive(X0, 0.5, RO_SGNS_EMBED_W_PLUS_C, g_out, D, &RA, &g_err);
}
static ro_sgns_result c_from_wc(void)
{
    g_fx = (ro_sgns_factors *)SENT;
    return ro_sgns_factors_from_wc(g_n, g_n, D, W0, CC0, &g_fx, &RA, &g_err);
}
static ro_sgns_factors *FROM_WC;
static int k_from_wc(ro_sgns_result rc) { return k_fx_as(rc, FROM_WC); }

/* the head and the tail: the first HEAD_N words of P0 (a point XH on
   them from W0, CC0), the SPPMI's head block, the fold */
static size_t HEAD_N;
static ro_sgns_factors *XH, *FOLD_REF;
static ro_sgns_csr *CSR_HEAD_REF;
static double g_Fhead;
static ro_sgns_result c_problem_create_head(void)
{
    g_problem = (ro_sgns_problem *)SENT;
    return ro_sgns_problem_create_head(P0, HEAD_N, HEAD_N, &g_problem, &RA, &g_err);
}
static int k_problem_head(ro_sgns_result rc)
{
    double F = 0;
    int ok;
    if (rc != RO_SGNS_OK) return g_problem == (ro_sgns_problem *)SENT && inputs_intact();
    ok = ro_sgns_objective(g_problem, XH, &F, NULL) == RO_SGNS_OK &&
         memcmp(&F, &g_Fhead, sizeof F) == 0;
    ro_sgns_problem_free(g_problem);
    return ok && inputs_intact();
}
static ro_sgns_result c_csr_head(void)
{
    g_csr = (ro_sgns_csr *)SENT;
    return ro_sgns_csr_head(A0, HEAD_N, HEAD_N, &g_csr, NULL, &g_err);
}
static int k_csr_head(ro_sgns_result rc) { return k_csr_as(rc, CSR_HEAD_REF); }
static ro_sgns_result c_fold_in(void)
{
    ro_sgns_fold_config fc = ro_sgns_fold_config_default();
    ro_sgns_fold_report rep;
    fc.iterations = 2;
    fc.line_search = 1;
    fc.block_rows = 3;
    fc.start_w = W0; /* from the start XH came from (its projections' memory too) */
    fc.start_c = CC0;
    g_fx = (ro_sgns_factors *)SENT;
    return ro_sgns_fold_in(P0, XH, &fc, &g_fx, &rep, &RA, &g_err);
}
static int k_fold_in(ro_sgns_result rc) { return k_fx_as(rc, FOLD_REF); }

static ro_sgns_result c_factors_save_callback(void)
{
    mb_reset(&g_mb);
    return ro_sgns_factors_save_callback(X0, mb_write, &g_mb, &g_err);
}
static int k_fx_saved(ro_sgns_result rc)
{
    return (rc == RO_SGNS_OK ? same_bytes(&g_mb, X0_FILE, X0_SIZE) : g_mb.len == 0) &&
           inputs_intact();
}
/* a checkpoint's bytes to read, 50 bytes a call */
static membuf mb_over(unsigned char *p, size_t len)
{
    membuf r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.len = len;
    r.chunk = 50;
    return r;
}
static ro_sgns_result c_factors_load_callback(void)
{
    membuf r = mb_over(X0_FILE, X0_SIZE);
    g_fx = (ro_sgns_factors *)SENT;
    return ro_sgns_factors_load_callback(mb_read, &r, &g_fx, &RA, &g_err);
}
static ro_sgns_result c_factors_load_path(void)
{
    g_fx = (ro_sgns_factors *)SENT;
    return ro_sgns_factors_load_path(P_FX, &g_fx, NULL, &g_err);
}
static int k_fx_loaded(ro_sgns_result rc) { return k_fx_as(rc, X0); }
static ro_sgns_result c_factors_save_path(void)
{
    if (!old_in_place()) return RO_SGNS_ERR_IO;
    return ro_sgns_factors_save_path(X0, P_OUT, &g_err);
}
static int k_factors_save_path(ro_sgns_result rc) { return k_saved_over(rc, X0_FILE, X0_SIZE); }
/* a checkpoint with a best point: X0 twice (the best at step 0), score 0.25 */
static unsigned char *XB_FILE;
static size_t XB_SIZE;
static ro_sgns_factors *g_fxb;
static double g_score;
static ro_sgns_result c_factors_save_best_callback(void)
{
    mb_reset(&g_mb);
    return ro_sgns_factors_save_best_callback(X0, X0, 0.25, mb_write, &g_mb, &g_err);
}
static int k_fx_best_saved(ro_sgns_result rc)
{
    return (rc == RO_SGNS_OK ? same_bytes(&g_mb, XB_FILE, XB_SIZE) : g_mb.len == 0) &&
           inputs_intact();
}
static ro_sgns_result c_factors_load_best_callback(void)
{
    membuf r = mb_over(XB_FILE, XB_SIZE);
    g_fx = g_fxb = (ro_sgns_factors *)SENT;
    g_score = -1;
    return ro_sgns_factors_load_best_callback(mb_read, &r, &g_fx, &g_fxb, &g_score, &RA, &g_err);
}
static int k_fx_best_loaded(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_fxb == (ro_sgns_factors *)SENT && g_score == -1 && k_fx_as(rc, X0);
    ok = g_fxb != (ro_sgns_factors *)SENT && g_fxb && fx_equal(g_fxb, X0) && g_score == 0.25;
    if (g_fxb != (ro_sgns_factors *)SENT) ro_sgns_factors_free(g_fxb);
    return k_fx_as(rc, X0) && ok;
}
static ro_sgns_result c_factors_save_best_path(void)
{
    if (!old_in_place()) return RO_SGNS_ERR_IO;
    return ro_sgns_factors_save_best_path(X0, X0, 0.25, P_OUT, &g_err);
}
static int k_factors_save_best_path(ro_sgns_result rc) { return k_saved_over(rc, XB_FILE, XB_SIZE); }
/* a checkpoint with a run record (version 3): X0, its best X0, W0 and CC0
   as the rows */
static unsigned char *XR_FILE;
static size_t XR_SIZE;
static ro_sgns_run_record g_run;
static ro_sgns_run_record run_of_x0(void)
{
    ro_sgns_run_record r;
    memset(&r, 0, sizeof r);
    r.stage = RO_SGNS_RUN_DONE;
    r.last_gain = 0.125;
    r.fingerprint = 77;
    r.rows = g_n;
    r.d = D;
    r.W = W0;
    r.C = CC0;
    return r;
}
static ro_sgns_result c_factors_save_run_callback(void)
{
    ro_sgns_run_record r = run_of_x0();
    mb_reset(&g_mb);
    return ro_sgns_factors_save_run_callback(X0, X0, 0.25, &r, mb_write, &g_mb, &g_err);
}
static int k_fx_run_saved(ro_sgns_result rc)
{
    return (rc == RO_SGNS_OK ? same_bytes(&g_mb, XR_FILE, XR_SIZE) : g_mb.len == 0) &&
           inputs_intact();
}
static ro_sgns_result c_factors_load_run_callback(void)
{
    membuf r = mb_over(XR_FILE, XR_SIZE);
    g_fx = g_fxb = (ro_sgns_factors *)SENT;
    g_score = -1;
    memset(&g_run, 0, sizeof g_run);
    g_run.stage = -7; /* untouched on failure */
    return ro_sgns_factors_load_run_callback(mb_read, &r, &g_fx, &g_fxb, &g_score, &g_run, &RA,
                                             &g_err);
}
static int k_fx_run_loaded(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_run.stage == -7 && !g_run.W && k_fx_best_loaded(rc);
    ok = g_run.stage == RO_SGNS_RUN_DONE && g_run.last_gain == 0.125 && g_run.fingerprint == 77 &&
         g_run.rows == g_n && g_run.d == D && g_run.W &&
         memcmp(g_run.W, W0, g_n * D * sizeof(real)) == 0 &&
         memcmp(g_run.C, CC0, g_n * D * sizeof(real)) == 0;
    ro_sgns_run_record_free(&g_run, &RA);
    return k_fx_best_loaded(rc) && ok && !g_run.W;
}
static ro_sgns_result c_factors_save_run_path(void)
{
    ro_sgns_run_record r = run_of_x0();
    if (!old_in_place()) return RO_SGNS_ERR_IO;
    return ro_sgns_factors_save_run_path(X0, X0, 0.25, &r, P_OUT, &g_err);
}
static int k_factors_save_run_path(ro_sgns_result rc) { return k_saved_over(rc, XR_FILE, XR_SIZE); }

static void test_ro(void)
{
    size_t n = g_n, i;
    ro_sgns_ro_config cfg = ro_cfg();
    CHECK(ro_sgns_objective(P0, X0, &g_Fref, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_problem_create", c_problem_create, k_problem, RO_SGNS_OK, 1);
    sweep("ro_sgns_problem_create_csr", c_problem_create_csr, k_problem, RO_SGNS_OK, 1);
    sweep("ro_sgns_problem_create_naive", c_problem_create_naive, k_problem, RO_SGNS_OK, 1);
    sweep("ro_sgns_objective", c_objective, k_F, RO_SGNS_OK, 1);
    CHECK(ro_sgns_objective_naive(P0, X0, &g_Fnref, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_objective_naive", c_objective_naive, k_F_naive, RO_SGNS_OK, 1);
    CHECK(ro_sgns_objective_wc(P0, W0, CC0, D, &g_Fref, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_objective_wc", c_objective_wc, k_F, RO_SGNS_OK, 0);
    g_out_len = n * n;
    CHECK(c_direction_dense() == RO_SGNS_OK);
    memcpy(g_ref, g_out, n * n * sizeof(real));
    sweep("ro_sgns_direction_dense", c_direction_dense, k_out, RO_SGNS_OK, 1);
    CHECK(ro_sgns_tangent_norm(P0, X0, RO_SGNS_DIRECTION_PLAIN, &g_tnref, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_tangent_norm", c_tangent_norm, k_tangent_norm, RO_SGNS_OK, 5);
    /* RO: the reference run records the iterates */
    CHECK(ro_sgns_factors_create(n, n, D, &XW, &RA, &g_err) == RO_SGNS_OK);
    for (i = 0; i < 3; ++i) {
        CHECK(ro_sgns_factors_create(n, n, D, &SNAP[i], NULL, &g_err) == RO_SGNS_OK);
        fx_copy(SNAP[i], X0);
    }
    fx_copy(XW, X0);
    cfg.callback = snap_step;
    CHECK(ro_sgns_ro_train(P0, XW, &cfg, &g_err) == RO_SGNS_OK);
    CHECK(XW->iteration == X0->iteration + 2 && fx_equal(XW, SNAP[2]) && !fx_equal(XW, X0));
    g_advanced = 0;
    sweep("ro_sgns_ro_train", c_ro_train, k_ro_train, RO_SGNS_OK, 5);
    if (g_verbose) printf("  (%d failed runs kept the first step)\n", g_advanced);
    /* the same with the direction kept between sweeps, all of it (one n x n
       block more), then half its rows (a GEMM and a sweep over the rest):
       each its own reference run, then every allocation failing in turn */
    for (i = 0; i < 2; ++i) {
        g_keep_bytes = i == 0 ? (size_t)-1 : n / 2 * n * sizeof(real);
        fx_copy(XW, X0);
        cfg.keep_direction_bytes = g_keep_bytes;
        CHECK(ro_sgns_ro_train(P0, XW, &cfg, &g_err) == RO_SGNS_OK);
        CHECK(XW->iteration == X0->iteration + 2 && fx_equal(XW, SNAP[2]));
        g_advanced = 0;
        sweep(i == 0 ? "ro_sgns_ro_train, direction kept"
                     : "ro_sgns_ro_train, half the direction's rows kept",
              c_ro_train, k_ro_train, RO_SGNS_OK, 6);
    }
    g_keep_bytes = 0;
    cfg.keep_direction_bytes = 0;
    /* the metric direction (II.6b): its reference run, every allocation
       failing in turn, then the scaled direction's iterates again */
    for (i = 0; i < 2; ++i) {
        g_dir = i == 0 ? RO_SGNS_DIRECTION_METRIC : RO_SGNS_DIRECTION_SCALED;
        cfg.direction = g_dir;
        fx_copy(XW, X0);
        CHECK(ro_sgns_ro_train(P0, XW, &cfg, &g_err) == RO_SGNS_OK);
        CHECK(XW->iteration == X0->iteration + 2 && fx_equal(XW, SNAP[2]));
        g_advanced = 0;
        if (i == 0) sweep("ro_sgns_ro_train, metric direction", c_ro_train, k_ro_train, RO_SGNS_OK, 8);
    }
    CHECK(ro_sgns_factors_create(n, n, D, &NAIVE1, NULL, &g_err) == RO_SGNS_OK);
    CHECK(c_ro_step_naive() == RO_SGNS_OK);
    fx_copy(NAIVE1, XW);
    CHECK(NAIVE1->iteration == X0->iteration + 1 && !fx_equal(NAIVE1, X0));
    sweep("ro_sgns_ro_step_naive", c_ro_step_naive, k_ro_step_naive, RO_SGNS_OK, 1);
    CHECK(ro_sgns_factors_create(n, n, D, &TRAIN_NAIVE1, NULL, &g_err) == RO_SGNS_OK);
    CHECK(c_ro_train_naive() == RO_SGNS_OK);
    fx_copy(TRAIN_NAIVE1, XW);
    CHECK(TRAIN_NAIVE1->iteration == X0->iteration + 1);
    sweep("ro_sgns_ro_train_naive", c_ro_train_naive, k_ro_train_naive, RO_SGNS_OK, 1);
    ro_sgns_factors_free(TRAIN_NAIVE1);
    CHECK(ro_sgns_start_naive(P0, D, &START_NAIVE, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_start_naive", c_start_naive, k_start_naive, RO_SGNS_OK, 1);
    ro_sgns_factors_free(START_NAIVE);
    g_out_len = n * D;
    CHECK(c_embeddings_naive() == RO_SGNS_OK);
    memcpy(g_ref, g_out, n * D * sizeof(real));
    sweep("ro_sgns_factors_embeddings_naive", c_embeddings_naive, k_out, RO_SGNS_OK, 1);
    sweep("ro_sgns_estimate_step_seconds", c_estimate_step, k_estimate_step, RO_SGNS_OK, 5);
    ro_sgns_factors_free(NAIVE1);
    CHECK(ro_sgns_factors_from_wc(n, n, D, W0, CC0, &FROM_WC, NULL, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_factors_from_wc", c_from_wc, k_from_wc, RO_SGNS_OK, 1);
    HEAD_N = n / 2;
    CHECK(HEAD_N >= D &&
          ro_sgns_factors_from_wc(HEAD_N, HEAD_N, D, W0, CC0, &XH, NULL, &g_err) == RO_SGNS_OK);
    CHECK(c_problem_create_head() == RO_SGNS_OK &&
          ro_sgns_objective(g_problem, XH, &g_Fhead, &g_err) == RO_SGNS_OK);
    ro_sgns_problem_free(g_problem);
    sweep("ro_sgns_problem_create_head", c_problem_create_head, k_problem_head, RO_SGNS_OK, 1);
    CHECK(c_csr_head() == RO_SGNS_OK);
    CSR_HEAD_REF = g_csr;
    sweep("ro_sgns_csr_head", c_csr_head, k_csr_head, RO_SGNS_OK, 1);
    CHECK(c_fold_in() == RO_SGNS_OK);
    FOLD_REF = g_fx;
    sweep("ro_sgns_fold_in", c_fold_in, k_fold_in, RO_SGNS_OK, 1);
    ro_sgns_csr_free(CSR_HEAD_REF);
    ro_sgns_factors_free(FOLD_REF);
    ro_sgns_factors_free(XH);
    sweep("ro_sgns_factors_save_callback", c_factors_save_callback, k_fx_saved, RO_SGNS_OK, 0);
    sweep("ro_sgns_factors_load_callback", c_factors_load_callback, k_fx_loaded, RO_SGNS_OK, 1);
    sweep("ro_sgns_factors_load_path", c_factors_load_path, k_fx_loaded, RO_SGNS_OK, 1);
    sweep("ro_sgns_factors_save_path", c_factors_save_path, k_factors_save_path, RO_SGNS_OK, 1);
    CHECK(c_factors_save_best_callback() == RO_SGNS_OK && g_mb.len > X0_SIZE);
    XB_SIZE = g_mb.len;
    XB_FILE = (unsigned char *)malloc(XB_SIZE);
    CHECK(XB_FILE != NULL);
    if (XB_FILE) {
        memcpy(XB_FILE, g_mb.p, XB_SIZE);
        sweep("ro_sgns_factors_save_best_callback", c_factors_save_best_callback, k_fx_best_saved,
              RO_SGNS_OK, 0);
        sweep("ro_sgns_factors_load_best_callback", c_factors_load_best_callback, k_fx_best_loaded,
              RO_SGNS_OK, 1);
        sweep("ro_sgns_factors_save_best_path", c_factors_save_best_path, k_factors_save_best_path,
              RO_SGNS_OK, 1);
    }
    free(XB_FILE);
    CHECK(c_factors_save_run_callback() == RO_SGNS_OK && g_mb.len > X0_SIZE);
    XR_SIZE = g_mb.len;
    XR_FILE = (unsigned char *)malloc(XR_SIZE);
    CHECK(XR_FILE != NULL);
    if (XR_FILE) {
        memcpy(XR_FILE, g_mb.p, XR_SIZE);
        sweep("ro_sgns_factors_save_run_callback", c_factors_save_run_callback, k_fx_run_saved,
              RO_SGNS_OK, 0);
        sweep("ro_sgns_factors_load_run_callback", c_factors_load_run_callback, k_fx_run_loaded,
              RO_SGNS_OK, 1);
        sweep("ro_sgns_factors_save_run_path", c_factors_save_run_path, k_factors_save_run_path,
              RO_SGNS_OK, 1);
    }
    free(XR_FILE);
    for (i = 0; i < 3; ++i) ro_sgns_factors_free(SNAP[i]);
    ro_sgns_factors_free(XW);
    ro_sgns_factors_free(FROM_WC);
}

/* ======================================== 6. shards (one process, one or
   several shards in turn, no transport) */

static ro_sgns_problem *g_shard, *SH_PART, *SH_ALL;
static real *g_L, *g_DV, *g_DVref, *g_VSt, *g_U1, *g_Out, *g_Outref;
static real *g_Rs, *g_Rsin, *g_Rsref, *g_Rt, *g_Rtref, *g_Qt, *g_Qtin, *g_Qtref, *g_Qs;
static double g_Fpart;
#define SR0 2   /* the partial shard: rows SR0 .. n - 1 */
#define TQ 300  /* rows of the tsqr_apply test: two blocks of 256 */

static ro_sgns_result c_shard_create(void)
{
    g_shard = (ro_sgns_problem *)SENT;
    return ro_sgns_problem_create_rows(P0, SR0, g_n, &g_shard, &RA, &g_err);
}
static ro_sgns_result c_shard_create_csr(void)
{
    const ro_sgns_shard_spec sp = {g_n,     g_n,           SR0,       g_n, C0->row_ptr + SR0,
                                   C0->col, C0->val,       C0->ctx_count, C0->total, 5, 1.0};
    g_shard = (ro_sgns_problem *)SENT;
    return ro_sgns_problem_create_shard(&sp, &g_shard, NULL, &g_err);
}
/* the step's first product on the partial shard: F and D V at X0's rows */
static ro_sgns_result shard_pass1(const ro_sgns_problem *sh, real *DV, double *F,
                                  ro_sgns_error *err)
{
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns__ro_step st; /* nothing kept, not fused, the default blocks */
    ro_sgns__ro_step_init(&st, sh, &cfg, D);
    st.w.T = g_L;
    return ro_sgns__f_and_dv(&st, X0->U + SR0 * D, X0->S, X0->V, DV, F, err);
}
/* a shard is right when its first product gives the reference's bits */
static int shard_ok(const ro_sgns_problem *sh)
{
    size_t rows = g_n - SR0;
    double F = 0;
    int ok;
    memset(g_DV, 0, rows * D * sizeof(real));
    ok = shard_pass1(sh, g_DV, &F, NULL) == RO_SGNS_OK &&
         memcmp(g_DV, g_DVref, rows * D * sizeof(real)) == 0 && F == g_Fpart;
    return ok;
}
static int k_shard(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_shard == (ro_sgns_problem *)SENT;
    ok = shard_ok(g_shard);
    ro_sgns_problem_free(g_shard);
    return ok;
}
static ro_sgns_result c_pass1(void)
{
    memset(g_DV, 0x5a, (g_n - SR0) * D * sizeof(real));
    g_F = -777;
    return shard_pass1(SH_PART, g_DV, &g_F, &g_err);
}
static int k_pass1(ro_sgns_result rc)
{
    size_t bytes = (g_n - SR0) * D * sizeof(real);
    if (rc != RO_SGNS_OK) return filled(g_DV, bytes, 0x5a) && g_F == -777 && inputs_intact();
    return memcmp(g_DV, g_DVref, bytes) == 0 && g_F == g_Fpart && inputs_intact();
}
/* the step's second product: Out = M^T U' and U^T U' below it */
static ro_sgns_result shard_pass2(real *Out, ro_sgns_error *err)
{
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns__ro_step st; /* as in shard_pass1 */
    ro_sgns__ro_step_init(&st, SH_PART, &cfg, D);
    st.w.T = g_VSt;
    return ro_sgns__mt_u(&st, 0.5, X0->U + SR0 * D, X0->S, X0->V, g_U1, 0, Out, err);
}
static ro_sgns_result c_pass2(void)
{
    memset(g_Out, 0x5a, (g_n + D) * D * sizeof(real));
    return shard_pass2(g_Out, &g_err);
}
static int k_pass2(ro_sgns_result rc)
{
    /* on failure Out and UtU untouched: the sweep's and both products'
       workspace is taken before either is written */
    if (rc != RO_SGNS_OK) return filled(g_Out, (g_n + D) * D * sizeof(real), 0x5a) && inputs_intact();
    return memcmp(g_Out, g_Outref, (g_n + D) * D * sizeof(real)) == 0 && inputs_intact();
}
static ro_sgns_result c_tsqr_combine(void)
{
    memcpy(g_Rs, g_Rsin, 2 * D * D * sizeof(real));
    memset(g_Rt, 0x5a, D * D * sizeof(real));
    return ro_sgns__tsqr_combine(2, D, g_Rs, g_Rt, &RA, &g_err);
}
static int k_tsqr_combine(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK)
        return memcmp(g_Rs, g_Rsin, 2 * D * D * sizeof(real)) == 0 &&
               filled(g_Rt, D * D * sizeof(real), 0x5a);
    return memcmp(g_Rs, g_Rsref, 2 * D * D * sizeof(real)) == 0 &&
           memcmp(g_Rt, g_Rtref, D * D * sizeof(real)) == 0;
}
static ro_sgns_result c_tsqr_apply(void)
{
    memcpy(g_Qt, g_Qtin, TQ * D * sizeof(real));
    return ro_sgns__tsqr_apply(TQ, D, g_Qt, D, g_Qs, NULL, &g_err);
}
static int k_tsqr_apply(ro_sgns_result rc)
{
    /* Q is updated 256 rows at a time, with all workspace taken first: a
       failure leaves every block as it was */
    if (rc != RO_SGNS_OK) return memcmp(g_Qt, g_Qtin, TQ * D * sizeof(real)) == 0;
    return memcmp(g_Qt, g_Qtref, TQ * D * sizeof(real)) == 0;
}
static ro_sgns_result c_ro_train_shard(void)
{
    ro_sgns_ro_config cfg = ro_cfg();
    fx_copy(XW, X0);
    return ro_sgns_ro_train_shard(SH_ALL, NULL, XW, &cfg, &g_err);
}

static void test_shards(void)
{
    size_t n = g_n, rows = n - SR0, i;
    ro_sgns_ro_config cfg = ro_cfg();
    ro_sgns_rng rng;
    g_L = (real *)malloc(n * D * sizeof(real));
    g_DV = (real *)malloc(n * D * sizeof(real));
    g_DVref = (real *)malloc(n * D * sizeof(real));
    g_VSt = (real *)malloc(n * D * sizeof(real));
    g_U1 = (real *)malloc(n * D * sizeof(real));
    g_Out = (real *)malloc((n + D) * D * sizeof(real));
    g_Outref = (real *)malloc((n + D) * D * sizeof(real));
    g_Rs = (real *)malloc(2 * D * D * sizeof(real));
    g_Rsin = (real *)malloc(2 * D * D * sizeof(real));
    g_Rsref = (real *)malloc(2 * D * D * sizeof(real));
    g_Rt = (real *)malloc(D * D * sizeof(real));
    g_Rtref = (real *)malloc(D * D * sizeof(real));
    g_Qt = (real *)malloc(TQ * D * sizeof(real));
    g_Qtin = (real *)malloc(TQ * D * sizeof(real));
    g_Qtref = (real *)malloc(TQ * D * sizeof(real));
    g_Qs = (real *)malloc(D * D * sizeof(real));
    /* the inputs: L = U S, V S^T, U' = U, a stack of two R, Q and Qs */
    ro_sgns_gemm_naive(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, D, D, 1, X0->U, D, X0->S, D, 0, g_L,
                       D);
    ro_sgns_gemm_naive(RO_SGNS_NOTRANS, RO_SGNS_TRANS, n, D, D, 1, X0->V, D, X0->S, D, 0, g_VSt,
                       D);
    memcpy(g_U1, X0->U + SR0 * D, rows * D * sizeof(real));
    ro_sgns_rng_seed(&rng, 5, 0);
    for (i = 0; i < 2 * D * D; ++i) g_Rsin[i] = (real)ro_sgns_rng_normal(&rng);
    for (i = 0; i < TQ * D; ++i) g_Qtin[i] = (real)ro_sgns_rng_normal(&rng);
    for (i = 0; i < D * D; ++i) g_Qs[i] = (real)ro_sgns_rng_normal(&rng);
    /* the references */
    CHECK(ro_sgns_problem_create_rows(P0, SR0, n, &SH_PART, NULL, &g_err) == RO_SGNS_OK);
    CHECK(ro_sgns_problem_create_rows(P0, 0, n, &SH_ALL, &RA, &g_err) == RO_SGNS_OK);
    if (!SH_PART || !SH_ALL) return;
    CHECK(shard_pass1(SH_PART, g_DVref, &g_Fpart, &g_err) == RO_SGNS_OK);
    CHECK(shard_pass2(g_Outref, &g_err) == RO_SGNS_OK);
    CHECK(c_tsqr_combine() == RO_SGNS_OK);
    memcpy(g_Rsref, g_Rs, 2 * D * D * sizeof(real));
    memcpy(g_Rtref, g_Rt, D * D * sizeof(real));
    CHECK(c_tsqr_apply() == RO_SGNS_OK);
    memcpy(g_Qtref, g_Qt, TQ * D * sizeof(real));
    CHECK(shard_ok(SH_PART));
    sweep("ro_sgns_problem_create_rows", c_shard_create, k_shard, RO_SGNS_OK, 1);
    sweep("ro_sgns_problem_create_shard", c_shard_create_csr, k_shard, RO_SGNS_OK, 1);
    sweep("the step's first product on a shard", c_pass1, k_pass1, RO_SGNS_OK, 1);
    sweep("the step's second product on a shard", c_pass2, k_pass2, RO_SGNS_OK, 1);
    sweep("tsqr combine", c_tsqr_combine, k_tsqr_combine, RO_SGNS_OK, 1);
    sweep("tsqr apply", c_tsqr_apply, k_tsqr_apply, RO_SGNS_OK, 1);
    /* one shard of every row: ro_sgns_ro_train's iterates, bit for bit */
    CHECK(ro_sgns_factors_create(n, n, D, &XW, &RA, &g_err) == RO_SGNS_OK);
    for (i = 0; i < 3; ++i) {
        CHECK(ro_sgns_factors_create(n, n, D, &SNAP[i], NULL, &g_err) == RO_SGNS_OK);
        fx_copy(SNAP[i], X0);
    }
    fx_copy(XW, X0);
    cfg.callback = snap_step;
    CHECK(ro_sgns_ro_train(P0, XW, &cfg, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_ro_train_shard", c_ro_train_shard, k_ro_train, RO_SGNS_OK, 5);
    for (i = 0; i < 3; ++i) ro_sgns_factors_free(SNAP[i]);
    ro_sgns_factors_free(XW);
    ro_sgns_problem_free(SH_PART);
    ro_sgns_problem_free(SH_ALL);
    free(g_L);
    free(g_DV);
    free(g_DVref);
    free(g_VSt);
    free(g_U1);
    free(g_Out);
    free(g_Outref);
    free(g_Rs);
    free(g_Rsin);
    free(g_Rsref);
    free(g_Rt);
    free(g_Rtref);
    free(g_Qt);
    free(g_Qtin);
    free(g_Qtref);
    free(g_Qs);
}

/* ------------------------------------------- 6. the start on shards */

static ro_sgns_csr *g_rows_ref;
static size_t SR_A, SR_B; /* the rows of ro_sgns_sppmi_rows */

static ro_sgns_result c_sppmi_rows(void)
{
    g_csr = (ro_sgns_csr *)SENT;
    return ro_sgns_sppmi_rows(C0, SR_A, SR_B, 1.0, 0.75, &g_csr, &RA, &g_err);
}
static int k_sppmi_rows(ro_sgns_result rc) { return k_csr_as(rc, g_rows_ref); }
static ro_sgns_result c_tsvd_shard(void)
{
    ro_sgns_tsvd_config t = tsvd_cfg();
    g_fx = (ro_sgns_factors *)SENT;
    return ro_sgns_tsvd_shard(A0, NULL, D, &t, &g_fx, &RA, &g_err);
}

#ifdef _OPENMP
/* three shards of A0 as threads (tests/shard_comm.h), all allocating
   through the counting allocator: a failure on any one of them must reach
   all three, which return the same code with err filled in, hold nothing
   and leave *out alone; no shard may be left waiting (an alarm ends a run
   that hangs) */
#define SHARDS 3
static ro_sgns_csr *SHR[SHARDS];
static ro_sgns_factors *SHX[SHARDS], *SHXREF[SHARDS];

/* Krylov in 3 blocks of 2 columns (l = 6): every exchange of the loop */
static ro_sgns_tsvd_config shards_cfg(void)
{
    ro_sgns_tsvd_config t = tsvd_cfg();
    t.oversample = 3;
    t.block = 2;
    return t;
}

static ro_sgns_result c_tsvd_shards(void)
{
    ro_sgns_tsvd_config t = shards_cfg();
    ro_sgns_result res[SHARDS];
    ro_sgns_error errs[SHARDS];
    size_t ds[SHARDS], q;
    for (q = 0; q < SHARDS; ++q) {
        ds[q] = D;
        SHX[q] = (ro_sgns_factors *)SENT;
        errs[q].code = (ro_sgns_result)g_no_code;
        errs[q].message[0] = '\0';
    }
    if (shm_tsvd(SHR, SHARDS, ds, &t, &RA, SHX, res, errs) != 0) return (ro_sgns_result)g_no_code;
    for (q = 0; q < SHARDS; ++q)
        if (res[q] != res[0] || errs[q].code != res[0] || (res[0] != RO_SGNS_OK && !errs[q].message[0]))
            return (ro_sgns_result)g_no_code; /* the shards disagree */
    g_err = errs[0];
    return res[0];
}
static int k_tsvd_shards(ro_sgns_result rc)
{
    size_t q;
    int ok = 1;
    for (q = 0; q < SHARDS; ++q) {
        if (rc != RO_SGNS_OK) {
            ok &= SHX[q] == (ro_sgns_factors *)SENT;
            continue;
        }
        ok &= SHX[q] != (ro_sgns_factors *)SENT && fx_equal(SHX[q], SHXREF[q]);
        if (SHX[q] != (ro_sgns_factors *)SENT) ro_sgns_factors_free(SHX[q]);
    }
    return ok && inputs_intact();
}
#endif

#ifdef _OPENMP
/* the steps on the same three shards: an allocation failure on any one
   reaches all three, which return the same code and keep the same
   iterate (the start or step 1, never a mix), that of the run without
   failures */
static ro_sgns_problem *SHP[SHARDS];
static ro_sgns_factors *TX[SHARDS], *TX0[SHARDS], *TXS[3][SHARDS]; /* start, steps 1, 2 */

typedef struct {
    ro_sgns_factors **xs;
    ro_sgns_ro_config cfg;
    ro_sgns_result *res;
    ro_sgns_error *errs;
} train_args;

static void train_body(const ro_sgns_comm *c, int r, void *ctx)
{
    train_args *a = (train_args *)ctx;
    a->res[r] = ro_sgns_ro_train_shard(SHP[r], c, a->xs[r], &a->cfg, &a->errs[r]);
}

static int train_shards(ro_sgns_factors **xs, int iterations, ro_sgns_result *res,
                        ro_sgns_error *errs)
{
    train_args a;
    a.xs = xs;
    a.cfg = ro_cfg();
    a.cfg.iterations = iterations;
    a.res = res;
    a.errs = errs;
    return shm_run(SHARDS, train_body, &a) == 0;
}

static ro_sgns_result c_train_shards(void)
{
    ro_sgns_result res[SHARDS];
    ro_sgns_error errs[SHARDS];
    size_t q;
    for (q = 0; q < SHARDS; ++q) {
        fx_copy(TX[q], TX0[q]);
        errs[q].code = (ro_sgns_result)g_no_code;
        errs[q].message[0] = '\0';
    }
    if (!train_shards(TX, 2, res, errs)) return (ro_sgns_result)g_no_code;
    for (q = 0; q < SHARDS; ++q)
        if (res[q] != res[0] || errs[q].code != res[0] || (res[0] != RO_SGNS_OK && !errs[q].message[0]))
            return (ro_sgns_result)g_no_code;
    g_err = errs[0];
    return res[0];
}

static int k_train_shards(ro_sgns_result rc)
{
    uint64_t k = TX[0]->iteration - TX0[0]->iteration;
    size_t q;
    int ok = k <= 2 && (rc != RO_SGNS_OK || k == 2);
    for (q = 0; q < SHARDS && ok; ++q) ok = fx_equal(TX[q], TXS[k][q]);
    return ok && inputs_intact();
}
#endif

static void test_start_shards(void)
{
    size_t n = g_n;
    SR_A = n / 3;
    SR_B = n - 2;
    CHECK(ro_sgns_sppmi_rows(C0, SR_A, SR_B, 1.0, 0.75, &g_rows_ref, NULL, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_sppmi_rows", c_sppmi_rows, k_sppmi_rows, RO_SGNS_OK, 1);
    ro_sgns_csr_free(g_rows_ref);
    /* one shard: ro_sgns_tsvd's result */
    sweep("ro_sgns_tsvd_shard", c_tsvd_shard, k_tsvd, RO_SGNS_OK, 1);
#ifdef _OPENMP
    {
        ro_sgns_tsvd_config t = shards_cfg();
        ro_sgns_result res[SHARDS];
        ro_sgns_error errs[SHARDS];
        size_t ds[SHARDS], q, i, r0, r1;
        int made = 1;
        for (q = 0; q < SHARDS; ++q) { /* A0's rows q n / 3 .. (q + 1) n / 3 */
            r0 = q * n / SHARDS;
            r1 = (q + 1) * n / SHARDS;
            ds[q] = D;
            SHXREF[q] = NULL;
            SHR[q] = NULL;
            if (ro_sgns_csr_create(r1 - r0, n, A0->row_ptr[r1] - A0->row_ptr[r0], &SHR[q], NULL,
                                   &g_err) != RO_SGNS_OK) {
                made = 0;
                continue;
            }
            for (i = r0; i <= r1; ++i) SHR[q]->row_ptr[i - r0] = A0->row_ptr[i] - A0->row_ptr[r0];
            memcpy(SHR[q]->col, A0->col + A0->row_ptr[r0], (size_t)SHR[q]->nnz * sizeof(uint32_t));
            memcpy(SHR[q]->val, A0->val + A0->row_ptr[r0], (size_t)SHR[q]->nnz * sizeof(real));
        }
        CHECK(made && shm_tsvd(SHR, SHARDS, ds, &t, NULL, SHXREF, res, errs) == 0);
        for (q = 0; q < SHARDS; ++q)
            CHECKF(res[q] == RO_SGNS_OK, "shard %lu: %s", (unsigned long)q, errs[q].message);
        if (made && res[0] == RO_SGNS_OK && res[1] == RO_SGNS_OK && res[2] == RO_SGNS_OK) {
#ifdef HAVE_POSIX
            alarm(300);
#endif
            sweep("ro_sgns_tsvd_shard on 3 shards", c_tsvd_shards, k_tsvd_shards, RO_SGNS_OK, 3);
            /* the steps from that start, on P0's rows */
            for (q = 0; q < SHARDS; ++q) {
                size_t k;
                made &= ro_sgns_problem_create_rows(P0, q * n / SHARDS, (q + 1) * n / SHARDS,
                                                    &SHP[q], NULL, &g_err) == RO_SGNS_OK;
                TX0[q] = SHXREF[q];
                made &= ro_sgns_factors_create(SHXREF[q]->n, n, D, &TX[q], NULL, &g_err) ==
                        RO_SGNS_OK;
                for (k = 0; k < 3; ++k) {
                    made &= ro_sgns_factors_create(SHXREF[q]->n, n, D, &TXS[k][q], NULL,
                                                   &g_err) == RO_SGNS_OK;
                    fx_copy(TXS[k][q], SHXREF[q]);
                }
            }
            CHECK(made && train_shards(TXS[1], 1, res, errs) && train_shards(TXS[2], 2, res, errs));
            if (made)
                sweep("ro_sgns_ro_train_shard on 3 shards", c_train_shards, k_train_shards,
                      RO_SGNS_OK, 3);
#ifdef HAVE_POSIX
            alarm(0);
#endif
        }
        for (q = 0; q < SHARDS; ++q) {
            size_t k;
            ro_sgns_factors_free(SHXREF[q]);
            ro_sgns_csr_free(SHR[q]);
            ro_sgns_problem_free(SHP[q]);
            ro_sgns_factors_free(TX[q]);
            for (k = 0; k < 3; ++k) ro_sgns_factors_free(TXS[k][q]);
        }
    }
#endif
}

/* ========================================================= 6. vectors */

static ro_sgns_vectors *g_v;
static int g_fmt;
static void *g_buf;
static size_t g_buf_size;
static const ro_sgns_vectors_format FMT[3] = {RO_SGNS_W2V_TEXT, RO_SGNS_W2V_BINARY,
                                              RO_SGNS_GLOVE_TEXT};

static ro_sgns_result c_vectors_create(void)
{
    g_v = (ro_sgns_vectors *)SENT;
    return ro_sgns_vectors_create(g_n, D, (const char *const *)C0->vocab.word, W0, D, &g_v, &RA,
                                  &g_err);
}
static int k_vec_as(ro_sgns_result rc, const ro_sgns_vectors *ref)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_v == (ro_sgns_vectors *)SENT && inputs_intact();
    ok = vec_equal(g_v, ref);
    ro_sgns_vectors_free(g_v);
    return ok && inputs_intact();
}
static int k_vectors_create(ro_sgns_result rc) { return k_vec_as(rc, V0); }
static int k_vec_read(ro_sgns_result rc) { return k_vec_as(rc, V0_READ[g_fmt]); }
static ro_sgns_result c_load_memory(void)
{
    g_v = (ro_sgns_vectors *)SENT;
    return ro_sgns_vectors_load_memory(V0_FILE[g_fmt], V0_SIZE[g_fmt], FMT[g_fmt], 0, &g_v, &RA,
                                       &g_err);
}
static ro_sgns_result c_load_callback(void)
{
    membuf r;
    memset(&r, 0, sizeof r);
    r.p = V0_FILE[g_fmt];
    r.len = V0_SIZE[g_fmt];
    r.chunk = 30;
    g_v = (ro_sgns_vectors *)SENT;
    return ro_sgns_vectors_load_callback(mb_read, &r, FMT[g_fmt], 0, &g_v, NULL, &g_err);
}
static ro_sgns_result c_load_file(void)
{
    FILE *f = fopen(P_VEC[g_fmt], "rb");
    ro_sgns_result rc;
    g_v = (ro_sgns_vectors *)SENT;
    if (!f) return RO_SGNS_ERR_IO;
    rc = ro_sgns_vectors_load_file(f, FMT[g_fmt], 0, &g_v, &RA, &g_err);
    fclose(f);
    return rc;
}
static ro_sgns_result c_load_path(void)
{
    g_v = (ro_sgns_vectors *)SENT;
    return ro_sgns_vectors_load_path(P_VEC[g_fmt], FMT[g_fmt], 0, &g_v, NULL, &g_err);
}
static ro_sgns_result c_save_callback(void)
{
    mb_reset(&g_mb);
    return ro_sgns_vectors_save_callback(V0, FMT[g_fmt], mb_write, &g_mb, &RA, &g_err);
}
static int k_save_callback(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK) return inputs_intact();
    return same_bytes(&g_mb, V0_FILE[g_fmt], V0_SIZE[g_fmt]) &&
           inputs_intact();
}
static ro_sgns_result c_save_memory(void)
{
    g_buf = SENT;
    g_buf_size = 12345;
    return ro_sgns_vectors_save_memory(V0, FMT[g_fmt], &g_buf, &g_buf_size, &RA, &g_err);
}
static int k_save_memory(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_buf == SENT && g_buf_size == 12345 && inputs_intact();
    ok = g_buf_size == V0_SIZE[g_fmt] && memcmp(g_buf, V0_FILE[g_fmt], g_buf_size) == 0;
    RA.free_fn(RA.user, g_buf); /* "the matching free function" */
    return ok && inputs_intact();
}
static ro_sgns_result c_save_file(void)
{
    FILE *f = fopen(P_OUT, "wb");
    ro_sgns_result rc;
    if (!f) return RO_SGNS_ERR_IO;
    rc = ro_sgns_vectors_save_file(V0, FMT[g_fmt], f, &RA, &g_err);
    fclose(f);
    return rc;
}
static int k_save_file(ro_sgns_result rc)
{
    return rc != RO_SGNS_OK || file_is(P_OUT, V0_FILE[g_fmt], V0_SIZE[g_fmt]);
}
static ro_sgns_result c_save_path(void)
{
    if (!old_in_place()) return RO_SGNS_ERR_IO;
    return ro_sgns_vectors_save_path(V0, FMT[g_fmt], P_OUT, g_fmt == 1 ? &RA : NULL, &g_err);
}
static int k_save_path(ro_sgns_result rc)
{
    return k_saved_over(rc, V0_FILE[g_fmt], V0_SIZE[g_fmt]);
}

static void test_vectors(void)
{
    static const char *const fname[3] = {"word2vec text", "word2vec binary", "GloVe"};
    char name[120];
    sweep("ro_sgns_vectors_create", c_vectors_create, k_vectors_create, RO_SGNS_OK, 1);
    for (g_fmt = 0; g_fmt < 3; ++g_fmt) {
#define SWEEP_FMT(label, c, k, min)                                                          \
    snprintf(name, sizeof name, "%s (%s)", label, fname[g_fmt]);                             \
    sweep(name, c, k, RO_SGNS_OK, min)
        SWEEP_FMT("ro_sgns_vectors_load_memory", c_load_memory, k_vec_read, 1);
        SWEEP_FMT("ro_sgns_vectors_load_callback", c_load_callback, k_vec_read, 1);
        SWEEP_FMT("ro_sgns_vectors_load_file", c_load_file, k_vec_read, 1);
        SWEEP_FMT("ro_sgns_vectors_load_path", c_load_path, k_vec_read, 1);
        SWEEP_FMT("ro_sgns_vectors_save_callback", c_save_callback, k_save_callback, 0);
        SWEEP_FMT("ro_sgns_vectors_save_memory", c_save_memory, k_save_memory, 1);
        SWEEP_FMT("ro_sgns_vectors_save_file", c_save_file, k_save_file, 0);
        SWEEP_FMT("ro_sgns_vectors_save_path", c_save_path, k_save_path, 1);
#undef SWEEP_FMT
    }
}

/* ====================================================== 7. evaluation */

static ro_sgns_pairs *g_pairs, *PAIRS0;
static ro_sgns_analogies *g_q, *Q0;
static ro_sgns_similarity_result g_sim, g_sim_pattern, SIM0;
static ro_sgns_analogy_result *g_ar, *AR0[2];
static ro_sgns_neighbor g_nb[12], NB0[12];
static size_t g_count[3], COUNT0[3];
static double g_rho, RHO0;
static int g_method;
static const double SX[] = {1, 2, 2, 3, 5, 4, 4, 7, 8, 9};
static const double SY[] = {2, 1, 3, 3, 6, 4, 5, 5, 9, 8};

static int pairs_equal(const ro_sgns_pairs *a, const ro_sgns_pairs *b)
{
    size_t i;
    if (a->n != b->n) return 0;
    for (i = 0; i < a->n; ++i)
        if (strcmp(a->word1[i], b->word1[i]) || strcmp(a->word2[i], b->word2[i]) ||
            a->score[i] != b->score[i])
            return 0;
    return 1;
}
static int quest_equal(const ro_sgns_analogies *a, const ro_sgns_analogies *b)
{
    size_t i;
    if (a->n != b->n || a->nsections != b->nsections) return 0;
    for (i = 0; i < 4 * a->n; ++i)
        if (strcmp(a->words[i], b->words[i])) return 0;
    for (i = 0; i < a->n; ++i)
        if (a->section[i] != b->section[i]) return 0;
    for (i = 0; i < a->nsections; ++i)
        if (strcmp(a->section_names[i], b->section_names[i])) return 0;
    return 1;
}

static ro_sgns_result c_spearman(void)
{
    g_rho = -2;
    return ro_sgns_spearman(10, SX, SY, &g_rho, &RA, &g_err);
}
static int k_spearman(ro_sgns_result rc) { return rc == RO_SGNS_OK ? g_rho == RHO0 : g_rho == -2; }
static ro_sgns_result c_pairs_load_memory(void)
{
    g_pairs = (ro_sgns_pairs *)SENT;
    return ro_sgns_pairs_load_memory(PAIRS, sizeof PAIRS - 1, &g_pairs, &RA, &g_err);
}
static ro_sgns_result c_pairs_load_path(void)
{
    g_pairs = (ro_sgns_pairs *)SENT;
    return ro_sgns_pairs_load_path(P_PAIRS, &g_pairs, NULL, &g_err);
}
static int k_pairs(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_pairs == (ro_sgns_pairs *)SENT;
    ok = pairs_equal(g_pairs, PAIRS0);
    ro_sgns_pairs_free(g_pairs);
    return ok;
}
static ro_sgns_result c_quest_load_memory(void)
{
    g_q = (ro_sgns_analogies *)SENT;
    return ro_sgns_analogies_load_memory(QUEST, sizeof QUEST - 1, &g_q, NULL, &g_err);
}
static ro_sgns_result c_quest_load_path(void)
{
    g_q = (ro_sgns_analogies *)SENT;
    return ro_sgns_analogies_load_path(P_QUEST, &g_q, &RA, &g_err);
}
static int k_quest(ro_sgns_result rc)
{
    int ok;
    if (rc != RO_SGNS_OK) return g_q == (ro_sgns_analogies *)SENT;
    ok = quest_equal(g_q, Q0);
    ro_sgns_analogies_free(g_q);
    return ok;
}
static ro_sgns_similarity_config sim_cfg(void)
{
    ro_sgns_similarity_config c = ro_sgns_similarity_config_default();
    c.fold_case = 1; /* the folded lookup table is one more allocation */
    return c;
}
static ro_sgns_result c_similarity(void)
{
    ro_sgns_similarity_config c = sim_cfg();
    memset(&g_sim, 0x5a, sizeof g_sim);
    return ro_sgns_similarity_eval(V0, PAIRS0, &c, &g_sim, &RA, &g_err);
}
static ro_sgns_result c_similarity_path(void)
{
    ro_sgns_similarity_config c = sim_cfg();
    memset(&g_sim, 0x5a, sizeof g_sim);
    return ro_sgns_similarity_eval_path(V0, P_PAIRS, &c, &g_sim, NULL, &g_err);
}
static int k_similarity(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK) return memcmp(&g_sim, &g_sim_pattern, sizeof g_sim) == 0 && inputs_intact();
    return g_sim.spearman == SIM0.spearman && g_sim.pearson == SIM0.pearson &&
           g_sim.pairs_used == SIM0.pairs_used && g_sim.pairs_oov == SIM0.pairs_oov &&
           inputs_intact();
}
/* field by field: a 32-bit size_t leaves padding in ro_sgns_neighbor */
static size_t g_nb_filled;
static int nb_equal(const ro_sgns_neighbor *a, const ro_sgns_neighbor *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (a[i].row != b[i].row || a[i].similarity != b[i].similarity) return 0;
    return filled(a + n, (12 - n) * sizeof *a, 0x5a);
}
static ro_sgns_result c_nb_word(void)
{
    memset(g_nb, 0x5a, sizeof g_nb);
    memset(g_count, 0x5a, sizeof g_count);
    return ro_sgns_neighbors_of_word(V0, "cat", 5, g_nb, g_count, &RA, &g_err);
}
static ro_sgns_result c_nb_vectors(void)
{
    size_t ex[3];
    ex[0] = 0;
    ex[1] = RO_SGNS_NO_ROW;
    ex[2] = 2;
    memset(g_nb, 0x5a, sizeof g_nb);
    memset(g_count, 0x5a, sizeof g_count);
    return ro_sgns_neighbors_of_vectors(V0, 3, W0, D, ex, 4, g_nb, g_count, NULL, &g_err);
}
static int k_nb(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK)
        return filled(g_nb, sizeof g_nb, 0x5a) && filled(g_count, sizeof g_count, 0x5a) &&
               inputs_intact();
    return nb_equal(g_nb, NB0, g_nb_filled) && memcmp(g_count, COUNT0, sizeof g_count) == 0 &&
           inputs_intact();
}
static const char *const MS_POS[] = {"king", "woman"}, *const MS_NEG[] = {"man"};
static const ro_sgns_similar_query MS_QUERY = {MS_POS, 2, MS_NEG, 1, 12};
static ro_sgns_result c_most_similar(void)
{
    memset(g_nb, 0x5a, sizeof g_nb);
    memset(g_count, 0x5a, sizeof g_count);
    return ro_sgns_most_similar(V0, &MS_QUERY, 5, g_nb, g_count, &RA, &g_err);
}
static const char *const ODD_WORDS[] = {"cat", "dog", "king", "apple"};
static size_t g_which, WHICH0;
static double g_odd[4], ODD0[4];
static ro_sgns_result c_doesnt_match(void)
{
    g_which = 99;
    memset(g_odd, 0x5a, sizeof g_odd);
    return ro_sgns_doesnt_match(V0, ODD_WORDS, 4, &g_which, g_odd, &RA, &g_err);
}
static int k_doesnt_match(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK) return g_which == 99 && filled(g_odd, sizeof g_odd, 0x5a) && inputs_intact();
    return g_which == WHICH0 && memcmp(g_odd, ODD0, sizeof ODD0) == 0 && inputs_intact();
}
static ro_sgns_analogy_config an_cfg(void)
{
    ro_sgns_analogy_config c = ro_sgns_analogy_config_default();
    c.method = g_method ? RO_SGNS_3COSMUL : RO_SGNS_3COSADD;
    c.fold_case = 1;
    return c;
}
static ro_sgns_result c_analogy(void)
{
    ro_sgns_analogy_config c = an_cfg();
    g_ar = (ro_sgns_analogy_result *)SENT;
    return ro_sgns_analogy_eval(V0, Q0, &c, &g_ar, g_method ? NULL : &RA, &g_err);
}
static int k_analogy(ro_sgns_result rc)
{
    const ro_sgns_analogy_result *r = AR0[g_method];
    size_t i;
    int ok;
    if (rc != RO_SGNS_OK) return g_ar == (ro_sgns_analogy_result *)SENT && inputs_intact();
    ok = g_ar->total == r->total && g_ar->seen == r->seen && g_ar->correct == r->correct &&
         g_ar->nsections == r->nsections;
    for (i = 0; ok && i < r->nsections; ++i)
        ok = strcmp(g_ar->sections[i].name, r->sections[i].name) == 0 &&
             g_ar->sections[i].seen == r->sections[i].seen &&
             g_ar->sections[i].correct == r->sections[i].correct;
    ro_sgns_analogy_result_free(g_ar);
    return ok && inputs_intact();
}

static void test_eval(void)
{
    ro_sgns_similarity_config sc = sim_cfg();
    size_t ex[3];
    CHECK(ro_sgns_spearman(10, SX, SY, &RHO0, NULL, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_spearman", c_spearman, k_spearman, RO_SGNS_OK, 1);
    memset(&g_sim_pattern, 0x5a, sizeof g_sim_pattern);
    CHECK(ro_sgns_pairs_load_memory(PAIRS, sizeof PAIRS - 1, &PAIRS0, NULL, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_pairs_load_memory", c_pairs_load_memory, k_pairs, RO_SGNS_OK, 1);
    sweep("ro_sgns_pairs_load_path", c_pairs_load_path, k_pairs, RO_SGNS_OK, 1);
    CHECK(ro_sgns_analogies_load_memory(QUEST, sizeof QUEST - 1, &Q0, NULL, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_analogies_load_memory", c_quest_load_memory, k_quest, RO_SGNS_OK, 1);
    sweep("ro_sgns_analogies_load_path", c_quest_load_path, k_quest, RO_SGNS_OK, 1);
    CHECK(ro_sgns_similarity_eval(V0, PAIRS0, &sc, &SIM0, NULL, &g_err) == RO_SGNS_OK);
    CHECK(SIM0.pairs_used == 8 && SIM0.pairs_oov == 1); /* King folded; zebra unknown */
    sweep("ro_sgns_similarity_eval", c_similarity, k_similarity, RO_SGNS_OK, 1);
    sweep("ro_sgns_similarity_eval_path", c_similarity_path, k_similarity, RO_SGNS_OK, 1);
    CHECK(ro_sgns_neighbors_of_word(V0, "cat", 5, NB0, COUNT0, NULL, &g_err) == RO_SGNS_OK);
    memset(COUNT0 + 1, 0x5a, sizeof COUNT0 - sizeof COUNT0[0]);
    g_nb_filled = 5;
    sweep("ro_sgns_neighbors_of_word", c_nb_word, k_nb, RO_SGNS_OK, 1);
    ex[0] = 0;
    ex[1] = RO_SGNS_NO_ROW;
    ex[2] = 2;
    CHECK(ro_sgns_neighbors_of_vectors(V0, 3, W0, D, ex, 4, NB0, COUNT0, NULL, &g_err) ==
          RO_SGNS_OK);
    g_nb_filled = 12;
    sweep("ro_sgns_neighbors_of_vectors", c_nb_vectors, k_nb, RO_SGNS_OK, 1);
    CHECK(ro_sgns_most_similar(V0, &MS_QUERY, 5, NB0, COUNT0, NULL, &g_err) ==
          RO_SGNS_OK);
    memset(COUNT0 + 1, 0x5a, sizeof COUNT0 - sizeof COUNT0[0]);
    g_nb_filled = 5;
    sweep("ro_sgns_most_similar", c_most_similar, k_nb, RO_SGNS_OK, 1);
    CHECK(ro_sgns_doesnt_match(V0, ODD_WORDS, 4, &WHICH0, ODD0, NULL, &g_err) == RO_SGNS_OK);
    sweep("ro_sgns_doesnt_match", c_doesnt_match, k_doesnt_match, RO_SGNS_OK, 1);
    for (g_method = 0; g_method < 2; ++g_method) {
        ro_sgns_analogy_config ac = an_cfg();
        CHECK(ro_sgns_analogy_eval(V0, Q0, &ac, &AR0[g_method], NULL, &g_err) == RO_SGNS_OK);
        CHECK(AR0[g_method]->total == 6 && AR0[g_method]->seen == 5); /* Man King folded */
        sweep(g_method ? "ro_sgns_analogy_eval (3CosMul)" : "ro_sgns_analogy_eval (3CosAdd)",
              c_analogy, k_analogy, RO_SGNS_OK, 1);
    }
}

/* ============================================================ 8. SGD */

static real *SW, *SC, *SW0[2], *SC0[2];
static int g_sample;
static size_t g_sgd_len;

static ro_sgns_result c_sgd_memory(void)
{
    ro_sgns_sgd_config c = sgd_cfg(g_sample ? 1e-2 : 0);
    memset(SW, 0x5a, g_sgd_len);
    memset(SC, 0x5a, g_sgd_len);
    return ro_sgns_sgd_train_memory(g_text, g_text_len, &C0->vocab, &c, SW, SC,
                                    g_sample ? NULL : &RA, &g_err);
}
static ro_sgns_result c_sgd_callback(void)
{
    /* two virtual workers: the text is one round, so the bits are the
       one-thread run's, and the workers' memory is swept too */
    ro_sgns_sgd_config c = sgd_cfg(0);
    c.workers = 2;
    membuf r;
    memset(&r, 0, sizeof r);
    r.p = (unsigned char *)g_text;
    r.len = g_text_len;
    r.chunk = 61;
    memset(SW, 0x5a, g_sgd_len);
    memset(SC, 0x5a, g_sgd_len);
    return ro_sgns_sgd_train_callback(mb_read, &r, &C0->vocab, &c, SW, SC, &RA, &g_err);
}
static ro_sgns_result c_sgd_file(void)
{
    ro_sgns_sgd_config c = sgd_cfg(0);
    rewind(g_corpus_file);
    memset(SW, 0x5a, g_sgd_len);
    memset(SC, 0x5a, g_sgd_len);
    return ro_sgns_sgd_train_file(g_corpus_file, &C0->vocab, &c, SW, SC, NULL, &g_err);
}
static ro_sgns_result c_sgd_path(void)
{
    ro_sgns_sgd_config c = sgd_cfg(0);
    memset(SW, 0x5a, g_sgd_len);
    memset(SC, 0x5a, g_sgd_len);
    return ro_sgns_sgd_train_path(P_CORPUS, &C0->vocab, &c, SW, SC, &RA, &g_err);
}
static int k_sgd(ro_sgns_result rc)
{
    if (rc != RO_SGNS_OK) return filled(SW, g_sgd_len, 0x5a) && filled(SC, g_sgd_len, 0x5a);
    return memcmp(SW, SW0[g_sample], g_sgd_len) == 0 && memcmp(SC, SC0[g_sample], g_sgd_len) == 0;
}

static void test_sgd(void)
{
    int s;
    g_sgd_len = g_n * 4 * sizeof(real);
    SW = (real *)malloc(g_sgd_len);
    SC = (real *)malloc(g_sgd_len);
    for (s = 0; s < 2; ++s) {
        ro_sgns_sgd_config c = sgd_cfg(s ? 1e-2 : 0);
        SW0[s] = (real *)malloc(g_sgd_len);
        SC0[s] = (real *)malloc(g_sgd_len);
        CHECK(ro_sgns_sgd_train_memory(g_text, g_text_len, &C0->vocab, &c, SW0[s], SC0[s], NULL,
                                       &g_err) == RO_SGNS_OK);
    }
    CHECK(memcmp(SW0[0], SW0[1], g_sgd_len) != 0); /* sampling changes something */
    for (g_sample = 0; g_sample < 2; ++g_sample)
        sweep(g_sample ? "ro_sgns_sgd_train_memory (sample)" : "ro_sgns_sgd_train_memory",
              c_sgd_memory, k_sgd, RO_SGNS_OK, 2);
    g_sample = 0;
    sweep("ro_sgns_sgd_train_callback", c_sgd_callback, k_sgd, RO_SGNS_OK, 2);
    sweep("ro_sgns_sgd_train_file", c_sgd_file, k_sgd, RO_SGNS_OK, 2);
    sweep("ro_sgns_sgd_train_path", c_sgd_path, k_sgd, RO_SGNS_OK, 2);
    for (s = 0; s < 2; ++s) {
        free(SW0[s]);
        free(SC0[s]);
    }
    free(SW);
    free(SC);
}

/* ============================================ the same bytes everywhere */

/* The files of exactly representable data (counts of the fixture corpus,
   values k/8) must come out byte for byte as on x86-64, on every target
   (big-endian s390x, 32-bit armhf, Windows) and for float and double: so a
   file written on one reads on all. The FNV-1a hashes below are x86-64's. */
static uint64_t fnv(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static void test_same_bytes(void)
{
    static const char *const names[6] = {"counts", "checkpoint", "word2vec text",
                                         "word2vec binary", "GloVe", "counts (sampled)"};
    static const uint64_t expect[6] = {0xfe6e0123fdabecdeull, 0x07943680b7dfc11eull,
                                       0xc814466ec527f8edull, 0xbed7921a64978551ull,
                                       0x635e11a8f5fd6868ull, 0x866a466e15637739ull};
    const char *w[5] = {"alpha", "beta", "gamma", "delta", "\xc3\xa9t\xc3\xa9"};
    unsigned char *file[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    size_t size[6] = {0, 0, 0, 0, 0, 0}, i;
    ro_sgns_factors *f = NULL;
    ro_sgns_vectors *v = NULL;
    real x[5 * 4];
    int k;
    membuf m;
    for (i = 0; i < 5 * 4; ++i) x[i] = (real)((double)((int)(i * 7 % 23) - 11) / 8);
    file[0] = C0_FILE;
    size[0] = C0_SIZE;
    file[5] = C2_FILE;
    size[5] = C2_SIZE;
    CHECK(ro_sgns_factors_create(5, 4, 2, &f, NULL, &g_err) == RO_SGNS_OK);
    if (f) {
        memcpy(f->U, x, 10 * sizeof(real));
        memcpy(f->V, x + 10, 8 * sizeof(real));
        memcpy(f->S, x + 16, 4 * sizeof(real));
        f->iteration = 3;
        f->next_step = 0.25;
        memset(&m, 0, sizeof m);
        m.fail_at = -1;
        CHECK(ro_sgns_factors_save_callback(f, mb_write, &m, &g_err) == RO_SGNS_OK);
        file[1] = m.p;
        size[1] = m.len;
        ro_sgns_factors_free(f);
    }
    CHECK(ro_sgns_vectors_create(5, 4, w, x, 4, &v, NULL, &g_err) == RO_SGNS_OK);
    for (k = 0; k < 3; ++k) {
        void *buf = NULL;
        CHECK(ro_sgns_vectors_save_memory(v, FMT[k], &buf, &size[2 + k], NULL, &g_err) ==
              RO_SGNS_OK);
        file[2 + k] = (unsigned char *)malloc(size[2 + k] + 1);
        if (buf) memcpy(file[2 + k], buf, size[2 + k]);
        oom_macro_free(NULL, buf);
    }
    ro_sgns_vectors_free(v);
    for (k = 0; k < 6; ++k) {
        uint64_t h = file[k] ? fnv(file[k], size[k]) : 0;
        CHECKF(h == expect[k], "the %s file differs from x86-64's: %lu bytes, FNV-1a 0x%08lx%08lxull",
               names[k], (unsigned long)size[k], (unsigned long)(h >> 32),
               (unsigned long)(h & 0xffffffffu));
    }
    for (k = 1; k < 5; ++k) free(file[k]);
}

/* ================================== entry points that allocate nothing */

static volatile double g_sink;
static void n_result_string(void) { g_sink = (double)strlen(ro_sgns_result_string(RO_SGNS_ERR_IO)); }
static void n_rng(void)
{
    ro_sgns_rng r;
    ro_sgns_rng_seed(&r, 1, 2);
    g_sink = (double)ro_sgns_rng_next(&r) + ro_sgns_rng_uniform(&r) + ro_sgns_rng_normal(&r);
}
static void n_gemm_naive(void)
{
    ro_sgns_gemm_naive(RO_SGNS_NOTRANS, RO_SGNS_TRANS, GM, GN, GK, 1, g_A, GK, g_B, GK, 0, g_C,
                       GN);
}
static void n_configs(void)
{
    ro_sgns_count_config a = ro_sgns_count_config_default();
    ro_sgns_tsvd_config b = ro_sgns_tsvd_config_default();
    ro_sgns_ro_config c = ro_sgns_ro_config_default();
    ro_sgns_similarity_config d = ro_sgns_similarity_config_default();
    ro_sgns_analogy_config e = ro_sgns_analogy_config_default();
    ro_sgns_sgd_config f = ro_sgns_sgd_config_default();
    ro_sgns_fold_config g = ro_sgns_fold_config_default();
    g_sink = (double)a.window + (double)b.oversample + c.step + (double)d.fold_case + e.epsilon +
             f.alpha + (double)g.iterations;
}
static void n_lookups(void)
{
    size_t row = 0;
    double sim = 0;
    g_sink = (double)ro_sgns_vocab_find(&C0->vocab, "cat", 3) +
             (double)ro_sgns_vectors_find(V0, "cat", &row) +
             (ro_sgns_vectors_get(V0, "dog") ? 1.0 : 0.0) + (double)row;
    g_sink += (double)ro_sgns_similarity_of_words(V0, "cat", "dog", &sim, NULL) + sim;
}
static void n_sizes(void)
{
    ro_sgns_memory_estimate e = ro_sgns_estimate_memory(1000, 50000, 100, 1000000, 5000);
    g_sink = (double)e.peak + (double)ro_sgns_counts_saved_size(C0) +
             (double)ro_sgns_counts_fingerprint(C0);
}
static void n_check_resume(void)
{
    g_sink = (double)ro_sgns_factors_check_resume(X0, C0, 5, 1, D, NULL);
}
static void n_math(void)
{
    double r = 0;
    g_sink = ro_sgns_cosine(W0, W0 + D, D);
    ro_sgns_pearson(10, SX, SY, &r, NULL);
    g_sink = r;
}
static void n_describe(void)
{
    char line[400];
    g_sink = (double)ro_sgns_similarity_describe(&SIM0, line, sizeof line) +
             (double)ro_sgns_analogy_describe(AR0[0], line, sizeof line);
}
static void n_frees(void)
{
    ro_sgns_counts_free(NULL);
    ro_sgns_csr_free(NULL);
    ro_sgns_factors_free(NULL);
    ro_sgns_problem_free(NULL);
    ro_sgns_vectors_free(NULL);
    ro_sgns_vectors_normalize(NULL); /* its work: test_eval */
    ro_sgns_pairs_free(NULL);
    ro_sgns_analogies_free(NULL);
    ro_sgns_analogy_result_free(NULL);
}

static void test_no_alloc(void)
{
    no_alloc("ro_sgns_result_string", n_result_string);
    no_alloc("ro_sgns_rng_*", n_rng);
    no_alloc("ro_sgns_gemm_naive", n_gemm_naive);
    no_alloc("ro_sgns_*_config_default", n_configs);
    no_alloc("ro_sgns_vocab_find, ro_sgns_vectors_find/get, ro_sgns_similarity_of_words",
             n_lookups);
    no_alloc("ro_sgns_estimate_memory, ro_sgns_counts_saved_size, _fingerprint", n_sizes);
    no_alloc("ro_sgns_factors_check_resume", n_check_resume);
    no_alloc("ro_sgns_cosine, ro_sgns_pearson", n_math);
    no_alloc("ro_sgns_*_describe", n_describe);
    no_alloc("ro_sgns_*_free", n_frees);
}

/* ==================================================== crash safety */

typedef struct saver {
    const char *name;
    int kind; /* 0 counts, 1 checkpoint, 2.. vectors in FMT[kind - 2] */
} saver;
static const saver SAVERS[] = {{"counts", 0},          {"checkpoint", 1}, {"vectors text", 2},
                               {"vectors binary", 3}, {"vectors GloVe", 4}};
#define NSAVERS 5

/* big objects, so that a save cannot fit in a pipe and a stdio buffer */
static ro_sgns_counts *BIG_C;
static ro_sgns_factors *BIG_X;
static ro_sgns_vectors *BIG_V;
static unsigned char *BIG_FILE[NSAVERS];
static size_t BIG_SIZE[NSAVERS];

static ro_sgns_result save_to(int kind, const char *path, ro_sgns_error *err)
{
    if (kind == 0) return ro_sgns_counts_save_path(BIG_C, path, err);
    if (kind == 1) return ro_sgns_factors_save_path(BIG_X, path, err);
    return ro_sgns_vectors_save_path(BIG_V, FMT[kind - 2], path, NULL, err);
}
static ro_sgns_result emit_to(int kind, ro_sgns_write_fn fn, void *user, ro_sgns_error *err)
{
    if (kind == 0) return ro_sgns_counts_save_callback(BIG_C, fn, user, err);
    if (kind == 1) return ro_sgns_factors_save_callback(BIG_X, fn, user, err);
    return ro_sgns_vectors_save_callback(BIG_V, FMT[kind - 2], fn, user, NULL, err);
}

static int make_big(void)
{
    size_t nw = 1600, len = 0, i, cap = 100000;
    char *text = (char *)malloc(cap);
    uint64_t s = 777;
    ro_sgns_count_config cc = ro_sgns_count_config_default();
    ro_sgns_error err;
    real *W;
    int k, ok = 1;
    /* a corpus of 1600 words, each at least twice; 32 dimensions */
    for (i = 0; i < 12000; ++i) {
        size_t w;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        w = i < 2 * nw ? i % nw : (size_t)(s >> 33) % nw;
        len += (size_t)sprintf(text + len, "w%lu%c", (unsigned long)w, i % 12 == 11 ? '\n' : ' ');
    }
    cc.window = 2;
    cc.min_count = 2;
    ok = ro_sgns_count_memory(text, len, &cc, &BIG_C, NULL, &err) == RO_SGNS_OK;
    free(text);
    if (!ok) return 0;
    W = (real *)malloc(BIG_C->n * 32 * sizeof(real));
    for (i = 0; i < BIG_C->n * 32; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        W[i] = (real)((double)((s >> 33) % 17) / 8 - 1); /* short in text: quick to write */
    }
    ok = ro_sgns_vectors_create(BIG_C->n, 32, (const char *const *)BIG_C->vocab.word, W, 32, &BIG_V,
                                NULL, &err) == RO_SGNS_OK &&
         ro_sgns_factors_from_wc(BIG_C->n, BIG_C->n, 32, W, W, &BIG_X, NULL, &err) == RO_SGNS_OK;
    free(W);
    for (k = 0; ok && k < NSAVERS; ++k) {
        membuf m;
        memset(&m, 0, sizeof m);
        m.fail_at = -1;
        ok = emit_to(k, mb_write, &m, &err) == RO_SGNS_OK;
        BIG_FILE[k] = m.p;
        BIG_SIZE[k] = m.len;
        if (ok && BIG_SIZE[k] < 200000) {
            fprintf(stderr, "crash test: the %s file has only %lu bytes\n", SAVERS[k].name,
                    (unsigned long)BIG_SIZE[k]);
            ok = 0;
        }
    }
    return ok;
}

/* the write callback fails at its first, second, middle or last call */
static void test_failing_writer(void)
{
    int k;
    for (k = 0; k < NSAVERS; ++k) {
        long at[4], calls, bad = 0;
        int a;
        membuf m;
        memset(&m, 0, sizeof m);
        m.fail_at = -1;
        emit_to(k, mb_write, &m, NULL);
        calls = m.writes;
        at[0] = 0;
        at[1] = 1;
        at[2] = calls / 2;
        at[3] = calls - 1;
        for (a = 0; a < 4; ++a) {
            ro_sgns_error err;
            ro_sgns_result rc;
            mb_reset(&m);
            m.fail_at = at[a];
            err.message[0] = '\0';
            rc = emit_to(k, mb_write, &m, &err);
            if (rc != RO_SGNS_ERR_IO || !err.message[0] || m.after_fail != 0 ||
                memcmp(m.p, BIG_FILE[k], m.len) != 0) {
                if (!bad)
                    fprintf(stderr, "%s: write %ld of %ld fails: %s, %ld writes after it\n",
                            SAVERS[k].name, at[a], calls, ro_sgns_result_string(rc),
                            m.after_fail);
                ++bad;
            }
        }
        CHECKF(bad == 0 && calls > 2, "%s: a failing write callback (%ld writes)", SAVERS[k].name,
               calls);
        if (g_verbose)
            printf("  %s: %lu bytes in %ld writes\n", SAVERS[k].name, (unsigned long)BIG_SIZE[k],
                   calls);
        free(m.p);
    }
}

/* saving over an existing file: success replaces it and leaves no
   temporary file; a file of the user's named like a temporary one, even
   "<path>.tmp", is never touched; a directory, or a missing folder, is
   an error that names the path and gives the reason */
static void test_save_over(void)
{
    static const unsigned char MINE[] = "the user's own file";
    char mine[600], missing[600];
    int k;
    snprintf(mine, sizeof mine, "%s.tmp", P_OUT);
    snprintf(missing, sizeof missing, "%s.nodir/x", P_OUT);
    for (k = 0; k < NSAVERS; ++k) {
        ro_sgns_error err;
        ro_sgns_result rc;
        CHECK(old_in_place() && write_all(mine, MINE, sizeof MINE));
        rc = save_to(k, P_OUT, &err);
        CHECKF(rc == RO_SGNS_OK && file_is(P_OUT, BIG_FILE[k], BIG_SIZE[k]) &&
                   no_leftovers(P_OUT) && file_is(mine, MINE, sizeof MINE),
               "%s: saving over a file: %s", SAVERS[k].name, err.message);
        rc = save_to(k, missing, &err);
        CHECKF(rc == RO_SGNS_ERR_IO && strstr(err.message, missing) &&
                   !strstr(err.message, ".tmp") && strstr(err.message, strerror(ENOENT)),
               "%s: a missing folder: %s (%s)", SAVERS[k].name, ro_sgns_result_string(rc),
               err.message);
        remove(mine);
#if defined(HAVE_POSIX) || defined(_WIN32)
        if (make_dir(mine) == 0) {
            rc = save_to(k, mine, &err);
            CHECKF(rc == RO_SGNS_ERR_IO && strstr(err.message, "directory") &&
                       strstr(err.message, mine) && file_exists(mine),
                   "%s: a directory as the path: %s", SAVERS[k].name, err.message);
            remove_dir(mine);
        }
#endif
    }
    remove(P_OUT);
}

#ifdef HAVE_POSIX
/* In a child process: limit the files it writes to 4096 bytes (a full
   disk, as far as the save can tell) and save over the old file; with
   killed, the limit's signal ends the child halfway, as a crash would.
   Returns the child's wait status. */
static int save_in_child(int k, int killed, const char *path)
{
    int status = 0;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        struct rlimit lim;
        ro_sgns_error err;
        ro_sgns_result rc;
        lim.rlim_cur = lim.rlim_max = 0;
        setrlimit(RLIMIT_CORE, &lim); /* no core file when killed */
        lim.rlim_cur = lim.rlim_max = 4096;
        if (!killed) signal(SIGXFSZ, SIG_IGN); /* then write() fails with EFBIG */
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(3);
        rc = save_to(k, path, &err);
        /* not killed: a clean error that names the path and the reason */
        _exit(rc == RO_SGNS_ERR_IO && strstr(err.message, path) && !strstr(err.message, ".tmp") &&
                      strstr(err.message, strerror(EFBIG))
                  ? 0
                  : 1);
    }
    if (pid < 0) return -1;
    waitpid(pid, &status, 0);
    return status;
}

/* the disk fills up halfway: an I/O error with the reason; the old file
   as it was, no temporary file left */
static void disk_full_over_file(void)
{
    int k;
    for (k = 0; k < NSAVERS; ++k) {
        int status;
        CHECK(old_in_place());
        status = save_in_child(k, 0, P_OUT);
        CHECKF(child_ok(status) && file_is(P_OUT, OLD, sizeof OLD) &&
                   no_leftovers(P_OUT),
               "%s: disk full: child status %d; old file %s, temporary %s", SAVERS[k].name,
               status, file_is(P_OUT, OLD, sizeof OLD) ? "intact" : "CHANGED",
               no_leftovers(P_OUT) ? "removed" : "LEFT");
        leftovers(P_OUT, 1);
    }
    remove(P_OUT);
}

/* the disk full over a file; writing to a full device in place
   (/dev/full) is an I/O error too, and the device stays a device */
static void test_disk_full(void)
{
    struct stat st;
    int k;
    disk_full_over_file();
    if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) {
        /* Linux always has it (the kernel's mem driver; containers bind
           it): a failure under CI=true there; the BSDs and macOS do not */
#ifdef __linux__
        tu_skip("robust", "no /dev/full character device (the full device test)", 1);
#else
        tu_skip("robust", "no /dev/full character device (the full device test)", 0);
#endif
        return;
    }
    for (k = 0; k < NSAVERS; ++k) {
        ro_sgns_error err;
        ro_sgns_result rc = save_to(k, "/dev/full", &err);
        CHECKF(rc == RO_SGNS_ERR_IO && strstr(err.message, "/dev/full") &&
                   strstr(err.message, strerror(ENOSPC)) && stat("/dev/full", &st) == 0 &&
                   S_ISCHR(st.st_mode),
               "%s: /dev/full: %s (%s)", SAVERS[k].name, ro_sgns_result_string(rc), err.message);
    }
}

/* killed halfway (by the file size limit's signal, as SIGKILL would): the
   old file as it was; the temporary file is what a crash leaves beside
   it, holding the start of the new file */
static void test_killed(void)
{
    int k;
    for (k = 0; k < NSAVERS; ++k) {
        int status, left;
        CHECK(old_in_place());
        status = save_in_child(k, 1, P_OUT);
        CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ,
               "%s: the child was not killed halfway (status %d)", SAVERS[k].name, status);
        CHECKF(file_is(P_OUT, OLD, sizeof OLD), "%s: killed halfway, the old file changed",
               SAVERS[k].name);
        left = leftovers(P_OUT, 1);
        CHECKF(left == 1, "%s: %d temporary files beside the old one", SAVERS[k].name, left);
    }
    remove(P_OUT);
}

/* What the path is decides, never its name: a regular file under /dev
   (/dev/shm, a tmpfs) is replaced through a temporary file as anywhere
   else, so a save that fails or is killed halfway leaves the old file. */
static void test_dev_shm(void)
{
    char dir[] = "/dev/shm/ro_sgns_robust.XXXXXX", path[64];
    const char *saved = P_OUT;
    struct stat st;
    if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode) || !mkdtemp(dir)) {
        tu_skip("robust: a regular file under /dev/shm", "no writable /dev/shm", 0);
        return;
    }
    snprintf(path, sizeof path, "%s/out", dir);
    P_OUT = path;
    disk_full_over_file();
    test_killed();
    P_OUT = saved;
    remove(path);
    rmdir(dir);
}

/* what the path names decides: a symbolic link's target is replaced (the
   link stays); a FIFO, a character device and "-" are written in place */
static void test_save_kinds(void)
{
    char link[600], target[600], fifo[600], dev[600];
    struct stat st, null_st;
    int k;
    snprintf(target, sizeof target, "%s.target", P_OUT);
    snprintf(link, sizeof link, "%s.link", P_OUT);
    snprintf(fifo, sizeof fifo, "%s.fifo", P_OUT);
    snprintf(dev, sizeof dev, "%s.null", P_OUT);
    for (k = 0; k < NSAVERS; ++k) {
        ro_sgns_error err;
        ro_sgns_result rc;
        int i;
        /* a link, absolute then relative (to the link's folder), and a
           link to a link */
        for (i = 0; i < 3; ++i) {
            char rel[600], link2[700];
            const char *slash = strrchr(target, '/');
            snprintf(rel, sizeof rel, "%s", slash ? slash + 1 : target);
            snprintf(link2, sizeof link2, "%s2", link);
            remove(link);
            remove(link2);
            CHECK(write_all(target, OLD, sizeof OLD));
            if (symlink(i == 1 ? rel : target, link) != 0) continue;
            if (i == 2 && symlink(rel, link2) != 0) continue;
            if (i == 0 && target[0] != '/') { /* an absolute link */
                char abs[1300], cwd[600];
                remove(link);
                if (!getcwd(cwd, sizeof cwd)) continue;
                snprintf(abs, sizeof abs, "%s/%s", cwd, target);
                if (symlink(abs, link) != 0) continue;
            }
            rc = save_to(k, i == 2 ? link2 : link, &err);
            CHECKF(rc == RO_SGNS_OK && file_is(target, BIG_FILE[k], BIG_SIZE[k]) &&
                       lstat(link, &st) == 0 && S_ISLNK(st.st_mode) && no_leftovers(target),
                   "%s: through a symbolic link (%d): %s", SAVERS[k].name, i, err.message);
            remove(link2);
        }
        remove(link);
        remove(target);
        /* a FIFO: a child reads it all */
        remove(fifo);
        if (mkfifo(fifo, 0600) == 0) {
            pid_t pid;
            int status = 0;
            fflush(NULL);
            pid = fork();
            if (pid == 0) _exit(save_to(k, fifo, NULL) == RO_SGNS_OK ? 0 : 1);
            if (pid > 0) {
                size_t got = 0;
                unsigned char *all = (unsigned char *)malloc(BIG_SIZE[k] + 1);
                int fd = open(fifo, O_RDONLY);
                while (fd >= 0 && all) {
                    ssize_t r = read(fd, all + got, BIG_SIZE[k] + 1 - got);
                    if (r <= 0) break;
                    got += (size_t)r;
                }
                if (fd >= 0) close(fd);
                waitpid(pid, &status, 0);
                CHECKF(child_ok(status) && got == BIG_SIZE[k] &&
                           memcmp(all, BIG_FILE[k], got) == 0 && lstat(fifo, &st) == 0 &&
                           S_ISFIFO(st.st_mode),
                       "%s: into a FIFO: %lu bytes", SAVERS[k].name, (unsigned long)got);
                free(all);
            }
            remove(fifo);
        }
        /* a character device: a /dev/null of our own where we may make
           one (root) and open it (a VM or a nodev mount may refuse the
           node: ENXIO), else /dev/null itself (which a non-root process
           cannot replace anyway) */
        if (stat("/dev/null", &null_st) == 0 && !S_ISCHR(null_st.st_mode))
            tu_skip("saving into a character device", "/dev/null is not one on this machine",
                    0);
        else if (stat("/dev/null", &null_st) == 0) {
            const char *p = dev;
            int probe = -1;
            remove(dev);
            if (mknod(dev, S_IFCHR | 0666, null_st.st_rdev) != 0 ||
                (probe = open(dev, O_WRONLY)) < 0)
                p = "/dev/null";
            if (probe >= 0) close(probe);
            rc = save_to(k, p, &err);
            CHECKF(rc == RO_SGNS_OK && stat(p, &st) == 0 && S_ISCHR(st.st_mode) &&
                       st.st_rdev == null_st.st_rdev && no_leftovers(p),
                   "%s: into %s: %s", SAVERS[k].name, p, err.message);
            remove(dev);
        }
        /* "-": standard output, here a pipe to the parent */
        {
            int fds[2], status = 0;
            pid_t pid;
            if (pipe(fds) != 0) continue;
            fflush(NULL);
            pid = fork();
            if (pid == 0) {
                close(fds[0]);
                dup2(fds[1], 1);
                _exit(save_to(k, "-", NULL) == RO_SGNS_OK ? 0 : 1);
            }
            close(fds[1]);
            if (pid > 0) {
                size_t got = 0;
                unsigned char *all = (unsigned char *)malloc(BIG_SIZE[k] + 1);
                while (all) {
                    ssize_t r = read(fds[0], all + got, BIG_SIZE[k] + 1 - got);
                    if (r <= 0) break;
                    got += (size_t)r;
                }
                waitpid(pid, &status, 0);
                CHECKF(child_ok(status) && got == BIG_SIZE[k] &&
                           memcmp(all, BIG_FILE[k], got) == 0,
                       "%s: to standard output: %lu bytes", SAVERS[k].name,
                       (unsigned long)got);
                free(all);
            }
            close(fds[0]);
        }
    }
}
#endif

/* ro_sgns_check_output_path: fine for a new file, an existing one (left
   as it was), "-" and a device; an error naming the path and the reason
   for a directory and a missing folder; never a file left behind */
static void test_check_output_path(void)
{
    char missing[600];
    ro_sgns_error err;
    snprintf(missing, sizeof missing, "%s.nodir/x", P_OUT);
    remove(P_OUT);
    CHECKF(ro_sgns_check_output_path(P_OUT, &err) == RO_SGNS_OK && !file_exists(P_OUT) &&
               no_leftovers(P_OUT),
           "a new file: %s", err.message);
    CHECK(old_in_place());
    CHECKF(ro_sgns_check_output_path(P_OUT, &err) == RO_SGNS_OK &&
               file_is(P_OUT, OLD, sizeof OLD) && no_leftovers(P_OUT),
           "an existing file: %s", err.message);
    CHECK(ro_sgns_check_output_path("-", &err) == RO_SGNS_OK);
    CHECKF(ro_sgns_check_output_path(missing, &err) == RO_SGNS_ERR_IO &&
               strstr(err.message, missing) && strstr(err.message, strerror(ENOENT)),
           "a missing folder: %s", err.message);
#if defined(HAVE_POSIX) || defined(_WIN32)
    {
        char dir[600];
        snprintf(dir, sizeof dir, "%s.dir", P_OUT);
        if (make_dir(dir) == 0) {
            CHECKF(ro_sgns_check_output_path(dir, &err) == RO_SGNS_ERR_IO &&
                       strstr(err.message, "directory") && strstr(err.message, dir),
                   "a directory: %s", err.message);
            remove_dir(dir);
        }
    }
#endif
#ifdef HAVE_POSIX
    CHECK(ro_sgns_check_output_path("/dev/null", &err) == RO_SGNS_OK);
    if (geteuid() != 0) /* root may write anywhere */
        CHECKF(ro_sgns_check_output_path("/proc/version", &err) == RO_SGNS_ERR_IO,
               "/proc/version: %s", err.message);
#endif
    CHECK(ro_sgns_check_output_path(NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    remove(P_OUT);
}

#ifdef HAVE_POSIX
/* A save keeps the mode of the file it replaces (0600 stays private, 0640
   stays 0640), and its owner and group when running as root; a new file
   gets 0666 less the umask. Not root: the old file's group cannot be
   given, and the new file gets no group bits (checked in a child that
   drops root, when the tests run as root). */
static void test_save_mode(void)
{
    static const int MODES[] = {0600, 0640, 0604};
    mode_t um = umask(022);
    char dir[600], path[700];
    struct stat st;
    int k, i;
    umask(um);
    for (k = 0; k < NSAVERS; ++k) {
        ro_sgns_error err;
        for (i = 0; i < 3; ++i) {
            CHECK(old_in_place() && chmod(P_OUT, (mode_t)MODES[i]) == 0);
            if (geteuid() == 0) CHECK(chown(P_OUT, 65534, 65534) == 0);
            CHECKF(save_to(k, P_OUT, &err) == RO_SGNS_OK && stat(P_OUT, &st) == 0 &&
                       (int)(st.st_mode & 07777) == MODES[i] && no_leftovers(P_OUT),
                   "%s over a %o file: %o (%s)", SAVERS[k].name, MODES[i],
                   (unsigned)(st.st_mode & 07777), err.message);
            if (geteuid() == 0)
                CHECKF(st.st_uid == 65534 && st.st_gid == 65534, "%s: owner %ld:%ld, not kept",
                       SAVERS[k].name, (long)st.st_uid, (long)st.st_gid);
        }
        remove(P_OUT);
        CHECKF(save_to(k, P_OUT, &err) == RO_SGNS_OK && stat(P_OUT, &st) == 0 &&
                   (st.st_mode & 07777) == (0666 & ~um),
               "%s, a new file: %o, umask %o", SAVERS[k].name, (unsigned)(st.st_mode & 07777),
               (unsigned)um);
        remove(P_OUT);
    }
    snprintf(dir, sizeof dir, "%s.modes", P_OUT);
    snprintf(path, sizeof path, "%s/old", dir);
    if (geteuid() == 0 && mkdir(dir, 0700) == 0 && chmod(dir, 0777) == 0 &&
        write_all(path, OLD, sizeof OLD) && chmod(path, 0660) == 0 && chown(path, 0, 0) == 0) {
        pid_t pid;
        int status = 0;
        fflush(NULL);
        pid = fork();
        if (pid == 0) { /* a user outside root's group */
            ro_sgns_error err;
            if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
            _exit(save_to(1, path, &err) == RO_SGNS_OK ? 0 : 1);
        }
        if (pid > 0) waitpid(pid, &status, 0);
        CHECKF(pid > 0 && child_ok(status) && stat(path, &st) == 0 && st.st_uid == 65534 &&
                   (st.st_mode & 07777) == 0600,
               "not root over root's 0660 file: status %d, owner %ld, mode %o", status,
               (long)st.st_uid, (unsigned)(st.st_mode & 07777));
        remove(path);
        leftovers(path, 1);
    }
    rmdir(dir);
}
#endif

static void test_crash_safety(void)
{
    int k;
    if (!make_big()) {
        CHECKF(0, "cannot make the big objects");
    } else {
        test_failing_writer();
        test_save_over();
        test_check_output_path();
#ifdef HAVE_POSIX
        test_disk_full();
        test_killed();
        test_dev_shm();
        test_save_kinds();
        test_save_mode();
#else
        printf("robust: not POSIX: the disk-full, kill and link/FIFO/device tests skipped\n");
#endif
    }
    for (k = 0; k < NSAVERS; ++k) free(BIG_FILE[k]);
    ro_sgns_counts_free(BIG_C);
    ro_sgns_factors_free(BIG_X);
    ro_sgns_vectors_free(BIG_V);
}

/* ================================================================ main */

static int setup(void)
{
    ro_sgns_tsvd_config t = tsvd_cfg();
    void *saved = NULL;
    size_t n;
    int f;
    P_CORPUS = "robust_corpus.txt"; /* names under tu_path, copied: its buffers rotate */
    {
        static char paths[9][512];
        const char *names[9] = {"robust_corpus.txt", "robust.counts", "robust.fx",
                                "robust_vec.txt",    "robust_vec.bin", "robust_vec.glove",
                                "robust_pairs.txt",  "robust_quest.txt", "robust_out"};
        int i;
        for (i = 0; i < 9; ++i) {
            snprintf(paths[i], sizeof paths[i], "%s", tu_path(names[i]));
        }
        P_CORPUS = paths[0];
        P_COUNTS = paths[1];
        P_FX = paths[2];
        P_VEC[0] = paths[3];
        P_VEC[1] = paths[4];
        P_VEC[2] = paths[5];
        P_PAIRS = paths[6];
        P_QUEST = paths[7];
        P_OUT = paths[8];
    }
    make_corpus();
    if (!write_all(P_CORPUS, g_text, g_text_len)) {
        printf("robust: cannot write %s\n", P_CORPUS);
        return 0;
    }
    g_cc = ro_sgns_count_config_default();
    g_cc.window = 2;
    g_cc.min_count = 2;
    g_cc2 = g_cc;
    g_cc2.dynamic_window = RO_SGNS_WINDOW_SAMPLED;
    g_cc2.sample = 0.05;
    g_cc2.close_gaps = 1;
    if (ro_sgns_count_memory(g_text, g_text_len, &g_cc, &C0, &RA, &g_err) != RO_SGNS_OK) return 0;
    g_n = n = C0->n;
    if (ro_sgns_counts_save_memory(C0, &saved, &C0_SIZE, NULL, &g_err) != RO_SGNS_OK) return 0;
    C0_FILE = (unsigned char *)malloc(C0_SIZE);
    memcpy(C0_FILE, saved, C0_SIZE);
    oom_macro_free(NULL, saved);
    g_mb.cap = C0_SIZE + 100000;
    g_mb.p = (unsigned char *)malloc(g_mb.cap);
    if (!write_all(P_COUNTS, C0_FILE, C0_SIZE) ||
        ro_sgns_sppmi(C0, 1.0, 1.0, &A0, NULL, &g_err) != RO_SGNS_OK ||
        ro_sgns_tsvd(A0, D, &t, &X0, &RA, &g_err) != RO_SGNS_OK ||
        ro_sgns_factors_create(n, n, D, &X0_COPY, NULL, &g_err) != RO_SGNS_OK ||
        ro_sgns_problem_create(C0, 5, 1.0, &P0, &RA, &g_err) != RO_SGNS_OK)
        return 0;
    fx_copy(X0_COPY, X0);
    mb_reset(&g_mb);
    if (ro_sgns_factors_save_callback(X0, mb_write, &g_mb, &g_err) != RO_SGNS_OK) return 0;
    X0_SIZE = g_mb.len;
    X0_FILE = (unsigned char *)malloc(X0_SIZE);
    memcpy(X0_FILE, g_mb.p, X0_SIZE);
    if (!write_all(P_FX, X0_FILE, X0_SIZE)) return 0;
    W0 = (real *)malloc(n * D * sizeof(real));
    CC0 = (real *)malloc(n * D * sizeof(real));
    g_out = (real *)malloc(n * n * sizeof(real));
    g_ref = (real *)malloc(n * n * sizeof(real));
    if (ro_sgns_factors_embeddings(X0, 0.5, RO_SGNS_EMBED_W, W0, D, NULL, &g_err) != RO_SGNS_OK ||
        ro_sgns_factors_embeddings(X0, 0.5, RO_SGNS_EMBED_C, CC0, D, NULL, &g_err) != RO_SGNS_OK ||
        ro_sgns_vectors_create(n, D, (const char *const *)C0->vocab.word, W0, D, &V0, &RA,
                               &g_err) != RO_SGNS_OK)
        return 0;
    for (f = 0; f < 3; ++f) {
        void *buf = NULL;
        size_t size = 0;
        if (ro_sgns_vectors_save_memory(V0, FMT[f], &buf, &size, NULL, &g_err) != RO_SGNS_OK)
            return 0;
        V0_FILE[f] = (unsigned char *)malloc(size);
        memcpy(V0_FILE[f], buf, size);
        V0_SIZE[f] = size;
        oom_macro_free(NULL, buf);
        if (!write_all(P_VEC[f], V0_FILE[f], size) ||
            ro_sgns_vectors_load_memory(V0_FILE[f], size, FMT[f], 0, &V0_READ[f], NULL, &g_err) !=
                RO_SGNS_OK)
            return 0;
    }
    return write_all(P_PAIRS, PAIRS, sizeof PAIRS - 1) && write_all(P_QUEST, QUEST, sizeof QUEST - 1);
}

int main(int argc, char **argv)
{
    int i;
    g_verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    RA.malloc_fn = ra_malloc;
    RA.realloc_fn = ra_realloc;
    RA.free_fn = ra_free;
    RA.user = &g_user;
    if (!setup()) {
        fprintf(stderr, "robust: setup failed: %s\n", g_err.message);
        CHECK(0);
        return tu_finish("robust");
    }
    g_corpus_file = fopen(P_CORPUS, "rb");
    CHECK(g_corpus_file != NULL);
    if (!g_corpus_file) return tu_finish("robust");
    test_linalg();
    test_counting();
    test_sppmi_svd();
    test_ro();
    test_shards();
    test_start_shards();
    test_vectors();
    test_eval();
    test_sgd();
    test_no_alloc();
    test_same_bytes();
    CHECK(inputs_intact());
    test_crash_safety();
    /* everything the fixture made goes back: nothing left at all */
    fclose(g_corpus_file);
    ro_sgns_counts_free(C0);
    ro_sgns_csr_free(A0);
    ro_sgns_factors_free(X0);
    ro_sgns_factors_free(X0_COPY);
    ro_sgns_problem_free(P0);
    ro_sgns_vectors_free(V0);
    ro_sgns_pairs_free(PAIRS0);
    ro_sgns_analogies_free(Q0);
    ro_sgns_analogy_result_free(AR0[0]);
    ro_sgns_analogy_result_free(AR0[1]);
    for (i = 0; i < 3; ++i) {
        ro_sgns_vectors_free(V0_READ[i]);
        free(V0_FILE[i]);
        remove(P_VEC[i]);
    }
    CHECKF(g_oom.live == 0 && g_oom.wrong == 0, "at the end: %ld blocks left, %ld wrong frees",
           g_oom.live, g_oom.wrong);
    free(C0_FILE);
    free(C2_FILE);
    free(C3_FILE);
    free(X0_FILE);
    free(g_mb.p);
    free(W0);
    free(CC0);
    free(g_out);
    free(g_ref);
    remove(P_CORPUS);
    remove(P_COUNTS);
    remove(P_FX);
    remove(P_PAIRS);
    remove(P_QUEST);
    remove(P_OUT);
    return tu_finish(IS_D ? "robust(double)" : "robust(float)");
}
