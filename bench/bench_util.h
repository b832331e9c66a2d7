/* bench/bench_util.h - what every bench prints, and the OpenBLAS it compares with.

   One copy of the helpers the benches share: wall and CPU timers, the CPU's
   name and instruction sets, the load average, the compiler and flags, and
   the anchor: OpenBLAS's best kernel for the CPU the bench runs on.

   Why the anchor needs care: a DYNAMIC_ARCH OpenBLAS (Debian's 0.3.21) picks
   its kernels from the CPU it recognizes. On a CPU newer than the library
   it falls back to a generic one (an Intel Xeon with AVX-512 got
   "Prescott", SSE3: 20-60 GFLOP/s where its SkylakeX kernels give 113-150),
   and an OPENBLAS_CORETYPE left in the environment can pin a weaker one (a
   Zen 5 ran the Haswell AVX2 kernels). A ratio against either says nothing.
   bench_openblas_anchor(argv) therefore compares OpenBLAS's corename with
   the best kernel the CPU supports (AVX-512 F/BW/DQ/VL: SkylakeX, whose
   sgemm/dgemm kernels Cooperlake shares; AVX2 + FMA: Zen on AMD, Haswell
   elsewhere, which share theirs; AVX: SandyBridge) and, when OpenBLAS's is
   weaker, re-executes the bench with OPENBLAS_CORETYPE set to that kernel,
   in the bench's own environment only (tests and CI never include this
   file), remembering OpenBLAS's own pick in BENCH_OPENBLAS_PICKED so the
   tables print both. BENCH_OPENBLAS_KEEP=1 turns this off (to measure a
   given kernel on purpose: OPENBLAS_CORETYPE=Prescott BENCH_OPENBLAS_KEEP=1).

   Linux/glibc (reads /proc, execv /proc/self/exe); each bench defines
   _POSIX_C_SOURCE 200809L before its first include. Benches built without
   OpenBLAS define BENCH_NO_OPENBLAS before including this file. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#ifndef BENCH_FLAGS
#define BENCH_FLAGS "(not given: compile with -DBENCH_FLAGS=\"\\\"...\\\"\")"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define BENCH_UNUSED __attribute__((unused))
#else
#define BENCH_UNUSED
#endif

/* seconds on a monotonic clock */
static BENCH_UNUSED double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds (user + system) of this process (RUSAGE_SELF) or of its
   finished children (RUSAGE_CHILDREN) */
static BENCH_UNUSED double bench_cpu_seconds(int who)
{
    struct rusage r;
    getrusage(who, &r);
    return (double)r.ru_utime.tv_sec + 1e-6 * (double)r.ru_utime.tv_usec +
           (double)r.ru_stime.tv_sec + 1e-6 * (double)r.ru_stime.tv_usec;
}

/* peak resident memory of this process, MiB */
static BENCH_UNUSED double bench_peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* Sleep, so that another library's worker threads stop spinning before
   the next timing (OpenBLAS's keep both cores busy for a while after a
   call: our 2-thread numbers collapsed without this). */
static BENCH_UNUSED void bench_settle(double seconds)
{
    struct timespec t;
    t.tv_sec = (time_t)seconds;
    t.tv_nsec = (long)((seconds - (double)t.tv_sec) * 1e9);
    nanosleep(&t, NULL);
}

/* the 1-minute load average, -1 if unknown */
static BENCH_UNUSED double bench_load(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double l = -1;
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

/* The value of the first "key : value" line of /proc/cpuinfo, "" if none. */
static void bench_cpuinfo(const char *key, char *buf, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    size_t klen = strlen(key);
    buf[0] = '\0';
    if (!f) return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && (line[klen] == ' ' || line[klen] == '\t' ||
                                              line[klen] == ':')) {
            char *p = strchr(line, ':');
            if (p) {
                p += 1 + (p[1] == ' ');
                p[strcspn(p, "\n")] = '\0';
                snprintf(buf, size, "%s", p);
            }
            break;
        }
    fclose(f);
}

/* Does the CPU (as the kernel reports it: flags the OS does not enable are
   not listed) have this /proc/cpuinfo flag, e.g. "avx2"? */
static BENCH_UNUSED int bench_cpu_has(const char *flag)
{
    char flags[4096], *p;
    size_t n = strlen(flag);
    bench_cpuinfo("flags", flags, sizeof flags);
    for (p = strstr(flags, flag); p; p = strstr(p + 1, flag))
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

/* "AMD EPYC (AuthenticAMD family 25 model 1; avx2 fma)": the model name, the
   vendor, family and model (VMs often show only a generic model name), and
   the widest vector extensions. */
static BENCH_UNUSED void bench_cpu_name(char *buf, size_t size)
{
    char name[256], vendor[64], family[16], model[16], isa[64];
    bench_cpuinfo("model name", name, sizeof name);
    bench_cpuinfo("vendor_id", vendor, sizeof vendor);
    bench_cpuinfo("cpu family", family, sizeof family);
    bench_cpuinfo("model", model, sizeof model);
    isa[0] = '\0';
    if (bench_cpu_has("avx512f")) strcat(isa, "avx512f ");
    if (bench_cpu_has("avx512_bf16")) strcat(isa, "avx512_bf16 ");
    if (bench_cpu_has("avx2")) strcat(isa, "avx2 ");
    if (bench_cpu_has("fma")) strcat(isa, "fma ");
    if (isa[0]) isa[strlen(isa) - 1] = '\0';
    snprintf(buf, size, "%s (%s family %s model %s; %s)", name[0] ? name : "unknown CPU",
             vendor[0] ? vendor : "?", family[0] ? family : "?", model[0] ? model : "?",
             isa[0] ? isa : "no AVX");
}

static BENCH_UNUSED const char *bench_compiler(void)
{
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown compiler";
#endif
}

#ifndef BENCH_NO_OPENBLAS
char *openblas_get_corename(void);
char *openblas_get_config(void);
void openblas_set_num_threads(int);

/* 4 AVX-512, 3 AVX2 + FMA, 2 AVX, 1 SSE: the widest vectors an OpenBLAS
   corename's kernels use (names compared without case) */
static int bench_core_level(const char *name)
{
    static const char *const l4[] = {"SkylakeX", "Cooperlake", "SapphireRapids"};
    static const char *const l3[] = {"Haswell", "Zen"};
    static const char *const l2[] = {"SandyBridge", "Bulldozer", "Piledriver", "Steamroller",
                                     "Excavator"};
    size_t i;
    if (!name) return 0;
    for (i = 0; i < sizeof l4 / sizeof l4[0]; ++i)
        if (strcasecmp(name, l4[i]) == 0) return 4;
    for (i = 0; i < sizeof l3 / sizeof l3[0]; ++i)
        if (strcasecmp(name, l3[i]) == 0) return 3;
    for (i = 0; i < sizeof l2 / sizeof l2[0]; ++i)
        if (strcasecmp(name, l2[i]) == 0) return 2;
    return 1;
}

/* The OpenBLAS coretype that fits this CPU best, NULL if none is known. */
static const char *bench_openblas_best(void)
{
    char vendor[64];
    bench_cpuinfo("vendor_id", vendor, sizeof vendor);
    if (bench_cpu_has("avx512f") && bench_cpu_has("avx512bw") && bench_cpu_has("avx512dq") &&
        bench_cpu_has("avx512vl"))
        return "SkylakeX";
    if (bench_cpu_has("avx2") && bench_cpu_has("fma"))
        return strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0
                   ? "Zen"
                   : "Haswell";
    if (bench_cpu_has("avx")) return "SandyBridge";
    return NULL;
}

/* Would bench_openblas_anchor re-execute? (a bench that wants numbers from
   OpenBLAS's own pick too takes them before calling it) */
static BENCH_UNUSED int bench_openblas_weak(void)
{
    const char *best = bench_openblas_best(), *keep = getenv("BENCH_OPENBLAS_KEEP");
    if (keep && keep[0] == '1') return 0;
    if (getenv("BENCH_OPENBLAS_PICKED")) return 0; /* re-executed already */
    return best && bench_core_level(openblas_get_corename()) < bench_core_level(best);
}

/* Re-execute this bench with OPENBLAS_CORETYPE set to the CPU's best
   kernel when OpenBLAS's is weaker (see the top of this file). Returns
   when nothing is to be done or execv failed (then the bench goes on with
   the weaker kernel and its header says so). */
static BENCH_UNUSED void bench_openblas_anchor(char **argv)
{
    const char *best = bench_openblas_best();
    const char *env = getenv("OPENBLAS_CORETYPE");
    char was[128];
    if (!bench_openblas_weak()) return;
    snprintf(was, sizeof was, "%s (%s%s)", openblas_get_corename(),
             env ? "OPENBLAS_CORETYPE=" : "its own pick", env ? env : "");
    setenv("BENCH_OPENBLAS_PICKED", was, 1);
    setenv("OPENBLAS_CORETYPE", best, 1);
    fprintf(stderr, "bench: OpenBLAS runs %s on this CPU; re-running with OPENBLAS_CORETYPE=%s\n",
            was, best);
    fflush(NULL);
    execv("/proc/self/exe", argv);
    perror("bench: execv /proc/self/exe");
}

/* "Zen (OpenBLAS's own pick)" or "SkylakeX (OPENBLAS_CORETYPE=SkylakeX set by
   the bench; before: Prescott (its own pick))" */
static BENCH_UNUSED void bench_openblas_desc(char *buf, size_t size)
{
    const char *picked = getenv("BENCH_OPENBLAS_PICKED"), *env = getenv("OPENBLAS_CORETYPE");
    const char *core = openblas_get_corename(), *best = bench_openblas_best();
    char src[160];
    if (picked)
        snprintf(src, sizeof src, "OPENBLAS_CORETYPE=%s set by the bench; before: %s",
                 env ? env : "?", picked);
    else if (env)
        snprintf(src, sizeof src, "OPENBLAS_CORETYPE=%s from the environment", env);
    else
        snprintf(src, sizeof src, "OpenBLAS's own pick");
    snprintf(buf, size, "%s (%s%s%s)", core, src,
             best && bench_core_level(core) < bench_core_level(best)
                 ? "; WEAKER than this CPU's best, " : "",
             best && bench_core_level(core) < bench_core_level(best) ? best : "");
}
#endif

/* The lines every bench prints above its tables: CPU, compiler and flags,
   OpenBLAS's kernel, threads, load average. */
static BENCH_UNUSED void bench_print_setup(FILE *f, int threads)
{
    char cpu[512];
#ifndef BENCH_NO_OPENBLAS
    char ob[256];
    bench_openblas_desc(ob, sizeof ob);
#endif
    bench_cpu_name(cpu, sizeof cpu);
    fprintf(f, "- CPU: %s; %d threads; load average %.2f at start\n", cpu, threads, bench_load());
    fprintf(f, "- compiler: %s; flags: `%s`\n", bench_compiler(), BENCH_FLAGS);
#ifndef BENCH_NO_OPENBLAS
    fprintf(f, "- OpenBLAS: %s; corename %s\n", openblas_get_config(), ob);
#endif
}

#endif
