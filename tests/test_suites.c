/* test_suites.c - seven of the suites in one program, so that a build of
   the tests compiles the header's implementation once instead of seven
   times (most of make check's time is compiling ro_sgns.h). Each suite is
   its own tests/test_NAME.c, unchanged and still a program of its own
   (make build/test_NAME_f, as make coverage and make mutants do); here
   its main is renamed, and so are the few names two suites both define.

   usage: test_suites NAME   runs one suite (linalg count sppmi ro eval sgd
                             files), as its own program would, in this
                             process; run.sh runs each in its own process.
   test_robust.c (its own allocator macros) and test_step_alone.c
   (RO_SGNS_STEP_ONLY) configure the header differently: programs of their
   own. */
#define _XOPEN_SOURCE 700 /* what test_files.c asks for, before any header */

#define main tu_main_linalg
#include "test_linalg.c"
#undef main
#undef KERNEL_WANT
#undef KERNEL_GOT
#undef QR_ORTH
#undef QR_REC
#undef SVD_REC
#undef SVD_ORTH
#undef SVD_SIGMA

#define main tu_main_count
#include "test_count.c"
#undef main
#undef SAMPLE_PATH
#undef REF_MAXW
#undef RND

#define main tu_main_sppmi
#define real sppmi_real
#define g_rng sppmi_g_rng
#define EPS sppmi_EPS
#define rnd_orthonormal sppmi_rnd_orthonormal
#include "test_sppmi.c"
#undef main
#undef real
#undef g_rng
#undef EPS
#undef rnd_orthonormal

#define main tu_main_ro
#define real ro_real
#define g_rng ro_g_rng
#include "test_ro.c"
#undef main
#undef real
#undef g_rng

#define main tu_main_eval
#define test_files eval_test_files
#include "test_eval.c"
#undef main
#undef test_files
#undef IS_DOUBLE
#undef FAIL_TEXT
#undef BIN

#define main tu_main_sgd
#define real sgd_real
#define IS_D sgd_IS_D
#define mem_read sgd_mem_read
#include "test_sgd.c"
#undef main
#undef real
#undef IS_D
#undef mem_read
#undef EXPECT

#define main tu_main_files
#define real files_real
#define make_counts files_make_counts
#include "test_files.c"
#undef main
#undef real
#undef make_counts

static const struct {
    const char *name;
    int (*run)(void);
} tu_suites[] = {{"linalg", tu_main_linalg}, {"count", tu_main_count}, {"sppmi", tu_main_sppmi},
                 {"ro", tu_main_ro},         {"eval", tu_main_eval},   {"sgd", tu_main_sgd},
                 {"files", tu_main_files}};

int main(int argc, char **argv)
{
    size_t i;
    for (i = 0; argc == 2 && i < sizeof tu_suites / sizeof tu_suites[0]; ++i)
        if (strcmp(argv[1], tu_suites[i].name) == 0) return tu_suites[i].run();
    fprintf(stderr, "usage: %s SUITE (linalg count sppmi ro eval sgd files)\n",
            argc > 0 ? argv[0] : "test_suites");
    return 2;
}
