# ro_sgns.h - build, test and bench.
#   make           ./ro-sgns, the command-line program (needs only gcc and make)
#   make install   the header, ro-sgns (built portably: CFLAGS, default -O3,
#                  no -march=native unless NATIVE=1), a pkg-config file, the
#                  CMake package and LICENSE under PREFIX (default /usr/local;
#                  DESTDIR for staging); make uninstall
#   make check     everything CI runs (README's test command; under 15 minutes
#                  on 2 cores): test, asan, lapacke, tcc, cross (mk/cross.mk:
#                  each emulated platform's smoke list), a few seconds of each
#                  fuzz target (fuzz-check), two at a time; mpi-test.
#                  make check SLOW=1 adds every suite on every emulated
#                  platform, valgrind, ASan in double and the program built
#                  by tcc (about an hour)
#   make test      the suite with portable flags (-O2, no -march=native), float and
#                  double, gcc + OpenMP; clang without OpenMP and g++ as C++ (quick
#                  mode); the
#                  AVX-512 and AVX2+FMA kernels when this CPU has them (the suites
#                  that run the products)
#   make asan      the suite under AddressSanitizer + UndefinedBehaviorSanitizer
#                  (-O1 -g, quick mode: the same checks on smaller sizes;
#                  float, and double too with SLOW=1)
#   make tcc       the suite (quick mode, float; with SLOW=1 double and the
#                  program end to end) built by TinyCC: the plain C99 paths, with no
#                  __GNUC__, SIMD or OpenMP
#   make lapacke   the suite again with RO_SGNS_USE_CBLAS + RO_SGNS_USE_LAPACKE
#                  (+ RO_SGNS_CBLAS_TILES: the step's tiles on the BLAS too),
#                  comparing the built-in kernels with OpenBLAS/LAPACKE
#   make bench     benchmarks (-O3 -march=native), ours vs OpenBLAS's best kernel
#                  for this CPU side by side; make bench-corpus: the ones that
#                  need the bundled corpus; make bench-cpu: one CPU's tables
#                  for bench/RESULTS.md (see the bench section below)
#   make coverage  gcov + lcov over every suite: what of the header the tests run
#   make size-table  rewrite docs/LIBRARY.md's table of object sizes per configuration
#   make mutants   one-line bugs put into a copy of the header one at a time: which
#                  the suites catch (tests/mutants.sh; slow, not in make check)
# Never -ffast-math or -Ofast: they remove the NaN checks.

ifeq ($(origin CC),default)
CC := gcc
endif
ifeq ($(origin CXX),default)
CXX := g++
endif
CLANG   ?= clang
B       := build
# -Wconversion -Wshadow for the header and the tests, here and in
# mk/cross.mk (32-bit size_t, LLP64). Not enforced, each finding deliberate:
# -Wfloat-equal (NaN tests, beta == 0), -Wdouble-promotion (sums in double),
# clang's -Weverything, C++98 (no 64-bit integers).
WARN    := -std=c99 -pedantic -Wall -Wextra -Wshadow -Wconversion -Werror
CXXWARN := -x c++ -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Werror
OPT     := -O2
BENCHFLAGS := -O3 -march=native -fopenmp
BLASLIBS := -llapacke -lopenblas
HAVE_AVX512 := $(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo yes)
HAVE_AVX2 := $(shell grep -w avx2 /proc/cpuinfo 2>/dev/null | grep -qw fma && echo yes)
HAVE_SSE42 := $(shell grep -qw sse4_2 /proc/cpuinfo 2>/dev/null && echo yes)

# step_alone: the header with RO_SGNS_STEP_ONLY (no counting, files,
# evaluation, SGD, shards, stdio, fold-in, metric direction or block Krylov
# SVD), the step alone from counts in memory
TESTS := linalg count sppmi ro eval sgd robust files step_alone
TEST_DEPS := ro_sgns.h tests/test_util.h tests/shard_comm.h tests/counts_file.h tests/sppmi_csr.h
# Compiling the header is most of make check's time, so seven suites are
# built as one program per build, tests/test_suites.c (run as
# "test_suites_f ro"): the implementation is compiled once instead of seven
# times (about 5x less compile time). test_robust (its own allocator
# macros) and test_step_alone (RO_SGNS_STEP_ONLY) are programs of their
# own. Each tests/test_NAME.c is still a program too (the pattern rule
# below: build/test_NAME_v; make coverage and make mutants build them so).
UNITY_TESTS := linalg count sppmi ro eval sgd files
UNITY_SRC := $(foreach t,$(UNITY_TESTS),tests/test_$(t).c)
# test_progs(v,suites): the programs that run those suites in build v;
# test_runs(v,suites): tests/run.sh's commands for them, one per suite
test_progs = $(sort $(foreach t,$(2),$(B)/test_$(if $(filter $(t),$(UNITY_TESTS)),suites,$(t))_$(1)))
test_runs = $(foreach t,$(2),$(if $(filter $(t),$(UNITY_TESTS)),"$(B)/test_suites_$(1) $(t)",$(B)/test_$(t)_$(1)))
# test_runs_quick(v,suites): the same in quick mode (RO_SGNS_TEST_QUICK=1)
test_runs_quick = $(foreach t,$(2),"env RO_SGNS_TEST_QUICK=1 $(B)/test_$(if $(filter $(t),$(UNITY_TESTS)),suites_$(1) $(t),$(t)_$(1))")

# Each variant builds the suites it checks: every suite in float and double
# (-O2, full size), as C++ and with clang (quick mode: what they check is
# the compiler, not the sizes); the SIMD kernels the CPU has with the
# suites that run the products (GEMM, the start, the step; full size, for
# every edge of the blocking); the CBLAS/LAPACKE path with the suites that
# call the linear algebra.
VARIANTS := f d cxx clang
QUICK_VARIANTS := cxx clang
KERNEL_TESTS := linalg sppmi ro
KERNEL_VARIANTS :=
ifeq ($(HAVE_AVX512),yes)
KERNEL_VARIANTS += simd_f simd_d
endif
ifeq ($(HAVE_AVX2),yes)
KERNEL_VARIANTS += avx2_f avx2_d
endif
LAPACKE_TESTS := linalg sppmi ro eval robust
COMPILE_TESTS := $(B)/static_f $(B)/alloc_f $(B)/alloc_cxx $(B)/nostdio_f \
                 $(B)/plain_f $(B)/plain_d $(B)/plain_cxx
TEST_BINS := $(foreach v,$(VARIANTS),$(call test_progs,$(v),$(TESTS))) \
             $(foreach v,$(KERNEL_VARIANTS),$(call test_progs,$(v),$(KERNEL_TESTS))) $(COMPILE_TESTS)
TEST_RUNS := $(foreach v,$(VARIANTS),$(call $(if $(filter $(v),$(QUICK_VARIANTS)),test_runs_quick,test_runs),$(v),$(TESTS))) \
             $(foreach v,$(KERNEL_VARIANTS),$(call test_runs,$(v),$(KERNEL_TESTS))) $(COMPILE_TESTS)
# the CRC-32C of the files by the SSE4.2 instruction (what -march=native
# builds use), against the same reference as the table-driven one
ifeq ($(HAVE_SSE42),yes)
TEST_BINS += $(B)/test_files_sse42
TEST_RUNS += $(B)/test_files_sse42
endif
# float only unless SLOW=1 (memory errors rarely depend on the type; the
# double build's run adds 3 minutes)
ASAN_VARIANTS := asan_f $(if $(filter 1,$(SLOW)),asan_d)
ASAN_BINS := $(foreach v,$(ASAN_VARIANTS),$(call test_progs,$(v),$(TESTS)))
ASAN_RUNS := $(foreach v,$(ASAN_VARIANTS),$(call test_runs,$(v),$(TESTS)))
LAPACKE_BINS := $(foreach v,lapacke_f lapacke_d,$(call test_progs,$(v),$(LAPACKE_TESTS)))
# double in quick mode: the agreement on smaller sizes (40 s less)
LAPACKE_RUNS := $(call test_runs,lapacke_f,$(LAPACKE_TESTS)) $(call test_runs_quick,lapacke_d,$(LAPACKE_TESTS))
# TinyCC's builds (make tcc, below)
TCC ?= tcc
HAVE_TCC := $(shell command -v $(TCC) >/dev/null 2>&1 && echo yes)
TCC_VARIANTS := tcc_f $(if $(filter 1,$(SLOW)),tcc_d)
TCC_BINS := $(foreach v,$(TCC_VARIANTS),$(call test_progs,$(v),$(TESTS)))
TCC_RUNS := $(foreach v,$(TCC_VARIANTS),$(call test_runs,$(v),$(TESTS)))
TCC_ALL := $(if $(HAVE_TCC),$(TCC_BINS) $(B)/ro-sgns-tcc)

.PHONY: all check bins test asan lapacke bench clean demo paper fuzz ablation bench-corpus fuzz-check install uninstall
# `make` builds the program a newcomer wants; the tests are `make test`
all: ro-sgns

# check builds everything first with two jobs (compiling the header dozens of
# times is most of the time), then runs the suites two at a time (most of
# them use one core: asan, valgrind, the emulated ones), each suite's output
# in one piece, each writing its scratch files in its own directory
# (RO_SGNS_TEST_TMP), the long ones first; MPI last, alone (its ranks fill
# the cores)
check:
	@$(MAKE) --no-print-directory -j2 bins cross-bins
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(if $(filter 1,$(SLOW)),valgrind) \
	    test-programs asan test-suites cross-mingw lapacke cross tcc fuzz-check style
	@$(MAKE) --no-print-directory mpi-test

bins: $(TEST_BINS) $(ASAN_BINS) $(LAPACKE_BINS) $(B)/ro-sgns-test $(B)/ro-sgns-asan $(B)/example_train \
      $(TCC_ALL) $(B)/kernel_rule.ok

# make test = test-suites (the programs of every variant, their scratch
# files in build/suites) and test-programs (the scripts below); make check
# runs the two side by side.
# test_quickstart: the header's QUICK START as printed, in C and C++;
# test_package: make install, the CMake package, make demo without data;
# test_python: the Python package (python/) against the program, bit for bit,
# and pip install ./python in a venv; again with gensim hidden
# test_head: the default run's head (words seen 200 times or more, at
# least 20,000) and its fold, on corpora tests/head_corpus.awk makes
.PHONY: test-suites test-programs style
# style: the house rules (tests/style.sh), then its self-test, which plants a
# break of each rule in a copy and sees the rule fail
style:
	@sh tests/style.sh; s=$$?; sh tests/style_selftest.sh && exit $$s
test: test-suites test-programs style
test-suites: export RO_SGNS_TEST_TMP := $(B)/suites
test-suites: $(TEST_BINS) $(B)/kernel_rule.ok
	@mkdir -p $(B)/suites
	@sh tests/run.sh $(TEST_RUNS)
test-programs: $(B)/ro-sgns-test $(B)/ro-sgns-asan $(B)/example_train
	@sh tests/run.sh "sh tests/test_cli.sh $(B)/ro-sgns-test $(B)/ro-sgns-asan" "sh tests/test_head.sh $(B)/ro-sgns-test" \
	    "sh tests/test_resume.sh $(B)/ro-sgns-test $(B)/ro-sgns-asan" "sh tests/interop_gensim.sh" \
	    "sh tests/robust_coverage.sh" "sh tests/test_harness.sh" "sh tests/configs.sh $(CC) $(CXX)" \
	    "sh tests/test_quickstart.sh $(CC) $(CXX)" "sh tests/test_package.sh $(B)/ro-sgns-test" \
	    "sh tests/test_python.sh $(B)/ro-sgns-test" "env RO_SGNS_TEST_NO_GENSIM=1 sh tests/test_python.sh $(B)/ro-sgns-test"

asan: export RO_SGNS_TEST_TMP := $(B)/asan
asan: $(ASAN_BINS)
	@mkdir -p $(B)/asan
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 RO_SGNS_TEST_QUICK=1 \
	    sh tests/run.sh $(ASAN_RUNS)

lapacke: export RO_SGNS_TEST_TMP := $(B)/lapacke
lapacke: $(LAPACKE_BINS)
	@mkdir -p $(B)/lapacke
	@sh tests/run.sh $(LAPACKE_RUNS)

$(B):
	@mkdir -p $(B)

# One rule per variant, from a table: the compiler and flags of variant v
# are V_v, extra libraries L_v (a test binary is build/test_<suite>_<v>).
# f and d are the -O2 builds; the variants that check another compiler,
# kernel or path build at -O1 (half the compile time of -O2). The sanitizer
# builds are -O1 -g, as ASan's documentation advises: with the suites in one
# program, -O1 costs 26 s more compiling than -O0 and saves two thirds of
# the run (quick mode, Zen 1: test_suites ro 82 s -> 24 s, linalg 33 -> 9).
V_f        := $(CC) $(WARN) $(OPT) -fopenmp
V_d        := $(V_f) -DRO_SGNS_REAL=double
V_cxx      := $(CXX) $(CXXWARN) -O1 -fopenmp
V_clang    := $(CLANG) $(WARN) -O1
V_simd_f   := $(CC) $(WARN) -O1 -mavx512f -mfma -fopenmp
V_simd_d   := $(V_simd_f) -DRO_SGNS_REAL=double
V_avx2_f   := $(CC) $(WARN) -O1 -mavx2 -mfma -fopenmp
V_avx2_d   := $(V_avx2_f) -DRO_SGNS_REAL=double
V_sse42    := $(CC) $(WARN) -O1 -msse4.2 -fopenmp
V_asan_f   := $(CC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
V_asan_d   := $(V_asan_f) -DRO_SGNS_REAL=double
V_lapacke_f := $(CC) $(WARN) -O1 -fopenmp -DRO_SGNS_USE_CBLAS -DRO_SGNS_USE_LAPACKE -DRO_SGNS_CBLAS_TILES
V_lapacke_d := $(V_lapacke_f) -DRO_SGNS_REAL=double
V_tcc_f    := $(TCC) -Wall -Werror
V_tcc_d    := $(V_tcc_f) -DRO_SGNS_REAL=double
V_cov_f    := $(CC) $(WARN) -O1 -fopenmp --coverage
V_cov_d    := $(V_cov_f) -DRO_SGNS_REAL=double
V_cov_nf   := $(V_cov_f) -march=native
V_cov_nd   := $(V_cov_d) -march=native
V_cov_s    := $(CC) $(WARN) -O1 --coverage
L_lapacke_f := $(BLASLIBS)
L_lapacke_d := $(BLASLIBS)
define test_rule
$$(B)/test_%_$(1): tests/test_%.c $$(TEST_DEPS) | $$(B)
	$$(V_$(1)) $$< -o $$@ $$(L_$(1)) -lm
$$(B)/test_suites_$(1): tests/test_suites.c $$(UNITY_SRC) $$(TEST_DEPS) | $$(B)
	$$(V_$(1)) $$< -o $$@ $$(L_$(1)) -lm
endef
$(foreach v,f d cxx clang simd_f simd_d avx2_f avx2_d sse42 asan_f asan_d lapacke_f lapacke_d tcc_f tcc_d \
            cov_f cov_d cov_nf cov_nd cov_s,$(eval $(call test_rule,$(v))))

# The GEMM kernel each x86-64 instruction set selects (II.1), checked when
# compiling tests/test_linalg.c for AVX-512 and for AVX2 + FMA (float and
# double), whatever this CPU can run: the test's compile-time check fails
# when the header picks another kernel than the rule (make test runs the
# same check in the builds it runs). make kernel-rule alone; make test and
# make check include it.
.PHONY: kernel-rule
kernel-rule: $(B)/kernel_rule.ok
$(B)/kernel_rule.ok: tests/test_linalg.c $(TEST_DEPS) | $(B)
	$(V_simd_f) -fsyntax-only $<
	$(V_simd_d) -fsyntax-only $<
	$(V_avx2_f) -fsyntax-only $<
	$(V_avx2_d) -fsyntax-only $<
	@touch $@

# Mutants (tests/mutants.sh): each of a list of one-line bugs applied to a
# copy of ro_sgns.h, the suites that should catch it built and run against
# the copy; a table of caught and missed. Not in make check: it compiles the
# header a dozen times (about 15 minutes on 2 cores).
.PHONY: mutants
mutants:
	sh tests/mutants.sh

# compile tests: two RO_SGNS_STATIC copies in one program; allocator macros in C
# and C++; RO_SGNS_NO_STDIO (-O0: they check that it builds and links, and
# run a few calls)
$(B)/static_f: tests/compile_static_a.c tests/compile_static_b.c tests/compile_static_main.c $(TEST_DEPS) | $(B)
	$(CC) $(WARN) -O0 tests/compile_static_a.c tests/compile_static_b.c tests/compile_static_main.c -o $@ -lm
$(B)/alloc_f: tests/compile_alloc.c $(TEST_DEPS) | $(B)
	$(CC) $(WARN) -O0 $< -o $@ -lm
$(B)/alloc_cxx: tests/compile_alloc.c $(TEST_DEPS) | $(B)
	$(CXX) $(CXXWARN) -O0 $< -o $@ -lm
$(B)/nostdio_f: tests/compile_alloc.c $(TEST_DEPS) | $(B)
	$(CC) $(WARN) -O0 -DRO_SGNS_NO_STDIO $< -o $@ -lm
# Part I alone (tests/test_plain.c defines RO_SGNS_PLAIN): no OpenMP, libc
# and libm only, C99 and C++, float and double
$(B)/plain_f: tests/test_plain.c $(TEST_DEPS) | $(B)
	$(CC) $(WARN) -O1 $< -o $@ -lm
$(B)/plain_d: tests/test_plain.c $(TEST_DEPS) | $(B)
	$(CC) $(WARN) -O1 -DRO_SGNS_REAL=double $< -o $@ -lm
$(B)/plain_cxx: tests/test_plain.c $(TEST_DEPS) | $(B)
	$(CXX) $(CXXWARN) -O1 $< -o $@ -lm

# ---------------------------------------------------------------- bench
# Every bench prints the CPU, compiler, flags and OpenBLAS's kernel
# (bench/bench_util.h); those that compare with OpenBLAS (gemm, ro) re-run
# themselves with OPENBLAS_CORETYPE set to the CPU's best kernel when
# OpenBLAS picked a weaker one (their own environment only: never the
# tests). BENCH_OPENBLAS_KEEP=1 keeps whatever OpenBLAS runs.
#   make bench          the benches that need no corpus: GEMM/QR/SVD in float
#                       and double (bench/gemm.c), file formats and evaluation
#                       (bench/eval.c; word lists from ../shared/data/wordsim)
#   make bench-corpus   the ones that need the bundled corpus ($(CORPUS),
#                       decompressed from ../shared/data/corpus on first use):
#                       counting, the SVD-SPPMI start, the RO step against the
#                       OpenBLAS floor at d = 100, 200, 500 in float and double
#                       ($(RO_ITERS) steps each), SGD-SGNS (ours only; bench/sgd.c
#                       says how to add word2vec.c). About an hour on 2 cores.
BENCH_DEPS := ro_sgns.h bench/bench_util.h
BENCH_CC = $(CC) -std=c99 -Wall -Wextra $(BENCHFLAGS) -DBENCH_FLAGS='"$(BENCHFLAGS)"'
CORPUS ?= $(B)/corpus.txt
RO_ITERS ?= 3

$(B)/bench_gemm: bench/gemm.c $(BENCH_DEPS) | $(B)
	$(BENCH_CC) $< -o $@ $(BLASLIBS) -lm
$(B)/bench_gemm_d: bench/gemm.c $(BENCH_DEPS) | $(B)
	$(BENCH_CC) -DRO_SGNS_REAL=double $< -o $@ $(BLASLIBS) -lm
# the vectors' quality, configuration by configuration (no BLAS: ours only)
$(B)/bench_quality: bench/quality.c $(BENCH_DEPS) | $(B)
	$(BENCH_CC) $< -o $@ -lm

$(B)/bench_ro_d: bench/ro.c $(BENCH_DEPS) | $(B)
	$(BENCH_CC) -DRO_SGNS_REAL=double $< -o $@ $(BLASLIBS) -lm
# the step in a CBLAS build: ro_sgns_gemm on OpenBLAS, the sweep's tiles on
# ours (bench_ro_cblas) or on OpenBLAS too (bench_ro_cblas_tiles: run it with
# an OpenMP or serial OpenBLAS, e.g. LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/
# openblas-openmp from Debian's libopenblas0-openmp; bench/RESULTS.md)
$(B)/bench_ro_cblas: bench/ro.c $(BENCH_DEPS) | $(B)
	$(BENCH_CC) -DRO_SGNS_USE_CBLAS $< -o $@ $(BLASLIBS) -lm
$(B)/bench_ro_cblas_tiles: bench/ro.c $(BENCH_DEPS) | $(B)
	$(BENCH_CC) -DRO_SGNS_USE_CBLAS -DRO_SGNS_CBLAS_TILES $< -o $@ $(BLASLIBS) -lm
$(B)/bench_%: bench/%.c $(BENCH_DEPS) | $(B)
	$(BENCH_CC) $< -o $@ $(BLASLIBS) -lm
# the step's elementwise part alone, at the bench flags and at plain -O2 (what
# a user's build gets), float and double
.PHONY: bench-elementwise
bench-elementwise: bench/elementwise.c $(BENCH_DEPS) | $(B)
	for r in float double; do \
	  $(CC) -std=c99 -Wall -Wextra $(BENCHFLAGS) -DBENCH_FLAGS='"$(BENCHFLAGS)"' -DRO_SGNS_REAL=$$r $< -o $(B)/bench_elementwise -lm && $(B)/bench_elementwise || exit 1; \
	  $(CC) -std=c99 -Wall -Wextra -O2 -DBENCH_FLAGS='"-O2"' -DRO_SGNS_REAL=$$r $< -o $(B)/bench_elementwise -lm && $(B)/bench_elementwise || exit 1; \
	done

bench: $(B)/bench_gemm $(B)/bench_gemm_d $(B)/bench_eval
	$(B)/bench_gemm
	$(B)/bench_gemm_d
	$(B)/bench_eval ../shared/data/wordsim $(B)/eval_RESULTS.md && cat $(B)/eval_RESULTS.md

$(B)/corpus.txt: | $(B)
	xz -dc $(DATA)/corpus/corpus.txt.xz > $@.tmp && mv $@.tmp $@ || { rm -f $@.tmp; exit 1; }

bench-corpus: $(B)/bench_count $(B)/bench_svd $(B)/bench_ro $(B)/bench_ro_d $(B)/bench_sgd $(CORPUS)
	$(B)/bench_count $(CORPUS) 5 100
	@test -f $(B)/corpus_w5_m200.counts || $(B)/bench_count $(CORPUS) 5 200 0 $(B)/corpus_w5_m200.counts
	$(B)/bench_svd $(B)/corpus_w5_m200.counts 100
	for d in 100 200 500; do $(B)/bench_ro $$d $(RO_ITERS) && $(B)/bench_ro_d $$d $(RO_ITERS) || exit 1; done
	head -c 100000000 $(CORPUS) > $(B)/corpus17m.txt
	$(B)/bench_sgd $(B)/corpus17m.txt 50 1,2

# What the counts files' CRC-32C costs: the CRC by the SSE4.2 instruction
# (-march=native) and by tables (RO_SGNS_NO_SIMD) against a byte at a time;
# the corpus's counts (COUNTS, version 1 as counted before) loaded whole and
# by 1/64 of the rows, then the same after converting it to version 2.
COUNTS ?= /work/cache/corpus_w5_m200.counts
.PHONY: bench-files
$(B)/bench_files_table: bench/files.c ro_sgns.h | $(B)
	$(CC) -std=c99 -Wall -Wextra -O3 -march=native -DRO_SGNS_NO_SIMD $< -o $@ -lm
bench-files: $(B)/bench_files $(B)/bench_files_table
	@echo "flags: $(CC) $(BENCHFLAGS); $$(grep -m1 'model name' /proc/cpuinfo)"
	$(B)/bench_files crc
	$(B)/bench_files_table crc
	$(B)/bench_files load $(COUNTS) 64
	$(B)/bench_files convert $(COUNTS) $(B)/bench_v2.counts
	$(B)/bench_files load $(B)/bench_v2.counts 64

# Every table issue 16 asks of one CPU (GEMM, the step against the OpenBLAS
# floor, the CBLAS build, 81k words on a corpus prefix, the AVX2 build, the
# elementwise loops), in one run with a summary: bench/cpu.sh says how to
# set the parts, a time budget and an unpacked OpenBLAS (~12 min on 2 cores).
.PHONY: bench-cpu
bench-cpu:
	sh bench/cpu.sh

# The pipeline at 22k and 81k words (bench/scale.sh; ~4 min on 2 Zen 5 cores,
# ~13 on Zen 3; ~2 GB).
.PHONY: bench-scale
bench-scale: ro-sgns $(B)/bench_scale
	sh bench/scale.sh

# libFuzzer targets for every parser: make check runs each FUZZ_CHECK_SECONDS
# (tests/fuzz_check.sh, built at -O0: 4 s a target instead of 25 s at -O1,
# and a few seconds of fuzzing need no speed); make fuzz runs them
# FUZZ_SECONDS each, built at -O1
FUZZ_CHECK_SECONDS ?= 3
fuzz-check: export RO_SGNS_TEST_TMP := $(B)/fuzz
fuzz-check: | $(B)
	@mkdir -p $(B)/fuzz
	@sh tests/run.sh "sh tests/fuzz_check.sh $(FUZZ_CHECK_SECONDS)"
FUZZERS := count counts_load w2v_text w2v_bin glove pairs
FUZZ_SECONDS ?= 20
fuzz: | $(B)
	@for f in $(FUZZERS); do \
	    $(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined tests/fuzz_$$f.c -o $(B)/fuzz_$$f -lm || exit 1; \
	    mkdir -p $(B)/fuzz_$${f}_corpus; \
	    echo "fuzz_$$f: $(FUZZ_SECONDS) s"; \
	    $(B)/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 $(B)/fuzz_$${f}_corpus 2>&1 | tail -n 2 || exit 1; \
	done

clean:
	rm -rf $(B) ro-sgns

# make coverage (by hand; needs lcov): every suite at full size built with
# --coverage five ways (float and double, each also with -march=native for
# the SIMD kernels, and serial for the paths OpenMP replaces) and the
# program through tests/test_cli.sh; lcov then sums what ran of ro_sgns.h
# into $(B)/coverage/ro_sgns.info and prints the rates. About 16 minutes on
# 2 cores. Lines it cannot see: save tests' forked children (they _exit)
# and the bodies of OpenMP's parallel loops in the OpenMP builds.
COV_BINS := $(foreach t,$(TESTS),$(foreach v,cov_f cov_d cov_nf cov_nd cov_s,$(B)/test_$(t)_$(v)))
.PHONY: coverage
coverage: export RO_SGNS_TEST_TMP := $(B)/coverage
coverage: $(COV_BINS) $(B)/ro-sgns-cov
	@command -v lcov >/dev/null || { echo "make coverage needs lcov (Debian: apt-get install lcov)"; exit 1; }
	@rm -rf $(B)/coverage && mkdir -p $(B)/coverage && find $(B) -name '*.gcda' -delete
	@sh tests/run.sh $(COV_BINS) "sh tests/test_cli.sh $(B)/ro-sgns-cov"
	@lcov -q -c -d $(B) --rc lcov_branch_coverage=1 -o $(B)/coverage/all.info 2>/dev/null
	@lcov -q -e $(B)/coverage/all.info '*/ro_sgns.h' --rc lcov_branch_coverage=1 \
	    -o $(B)/coverage/ro_sgns.info 2>/dev/null
	@lcov --summary $(B)/coverage/ro_sgns.info --rc lcov_branch_coverage=1 2>&1 | grep -E 'lines|functions|branches'
	@echo "lines no test ran: grep '^DA:.*,0\$$' $(B)/coverage/ro_sgns.info (or genhtml it)"
$(B)/ro-sgns-cov: examples/ro_sgns_cli.c ro_sgns.h | $(B)
	$(V_cov_f) $< -o $@ -lm

# cross compilers under qemu, mingw under wine, valgrind: make cross (run by
# make check: the smoke lists) and make valgrind (make check SLOW=1);
# packages: .ci/install-cross.sh
include mk/cross.mk

# ------------------------------------------------------------ programs
# the quick-start example must keep compiling (C and C++)
$(B)/example_train: examples/train.c ro_sgns.h | $(B)
	$(CC) $(WARN) -O1 -fopenmp $< -o $@ -lm
	$(CXX) $(CXXWARN) -O1 $< -o $@_cxx -lm

# the CLI with the test suite's portable flags, for tests/test_cli.sh, and
# under ASan + UBSan (float-cast-overflow too) for its error cases
$(B)/ro-sgns-test: examples/ro_sgns_cli.c ro_sgns.h | $(B)
	$(CC) $(WARN) $(OPT) -fopenmp $< -o $@ -lm
$(B)/ro-sgns-asan: examples/ro_sgns_cli.c ro_sgns.h | $(B)
	$(V_asan_f) -fsanitize=float-cast-overflow $< -o $@ -lm
# ./ro-sgns (make, make demo) runs where it is built: CFLAGS (default -O3),
# -fopenmp and -march=native (NATIVE=0 leaves -march=native out).
# make install builds $(B)/ro-sgns-portable with the same CFLAGS but without
# -march=native unless NATIVE=1, so a package built on one machine runs on
# another; it is rebuilt when its command line changes.
CFLAGS ?= -O3
PROG_CC = $(CC) -std=c99 -Wall -Wextra $(CFLAGS) -fopenmp
PORTABLE_CC = $(PROG_CC) $(if $(filter 1,$(NATIVE)),-march=native)
ro-sgns: examples/ro_sgns_cli.c ro_sgns.h
	$(PROG_CC) $(if $(filter 0,$(NATIVE)),,-march=native) $< -o $@ $(LDFLAGS) -lm
$(B)/ro-sgns-portable: examples/ro_sgns_cli.c ro_sgns.h $(B)/portable.flags
	$(PORTABLE_CC) $< -o $@ $(LDFLAGS) -lm
$(B)/portable.flags: FORCE | $(B)
	@echo '$(PORTABLE_CC) $(LDFLAGS)' | cmp -s - $@ || echo '$(PORTABLE_CC) $(LDFLAGS)' > $@
.PHONY: FORCE
FORCE:

# make install PREFIX=... [DESTDIR=...]: the header; the program; a
# pkg-config file (pkg-config --cflags --libs ro_sgns: -I... -lm; add
# -fopenmp for threads); the CMake package (cmake/: find_package(ro_sgns),
# the target ro_sgns::ro_sgns; CMakeLists.txt installs the same files);
# LICENSE. INSTALL_BIN names the program to install (the tests install
# their own build).
PREFIX ?= /usr/local
INSTALL_BIN ?= $(B)/ro-sgns-portable
RO_SGNS_VERSION := $(shell awk '/define RO_SGNS_VERSION_(MAJOR|MINOR|PATCH)/ { v = v (v == "" ? "" : ".") $$3 } END { print v }' ro_sgns.h)
CMAKE_DIR := share/cmake/ro_sgns
DOC_DIR := share/doc/ro_sgns
install: $(INSTALL_BIN)
	mkdir -p "$(DESTDIR)$(PREFIX)/include" "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/lib/pkgconfig" \
	    "$(DESTDIR)$(PREFIX)/$(CMAKE_DIR)" "$(DESTDIR)$(PREFIX)/$(DOC_DIR)"
	cp ro_sgns.h "$(DESTDIR)$(PREFIX)/include/ro_sgns.h"
	cp $(INSTALL_BIN) "$(DESTDIR)$(PREFIX)/bin/ro-sgns"
	chmod 755 "$(DESTDIR)$(PREFIX)/bin/ro-sgns"
	printf 'prefix=%s\nincludedir=$${prefix}/include\n\nName: ro_sgns\nDescription: %s\nVersion: %s\nCflags: -I$${includedir}\nLibs: -lm\n' \
	    "$(PREFIX)" "word embeddings by Riemannian optimization of SGNS (single header)" \
	    "$(RO_SGNS_VERSION)" > "$(DESTDIR)$(PREFIX)/lib/pkgconfig/ro_sgns.pc"
	cp cmake/ro_sgnsConfig.cmake "$(DESTDIR)$(PREFIX)/$(CMAKE_DIR)/ro_sgnsConfig.cmake"
	sed 's/@PROJECT_VERSION@/$(RO_SGNS_VERSION)/' cmake/ro_sgnsConfigVersion.cmake.in \
	    > "$(DESTDIR)$(PREFIX)/$(CMAKE_DIR)/ro_sgnsConfigVersion.cmake"
	cp LICENSE "$(DESTDIR)$(PREFIX)/$(DOC_DIR)/LICENSE"
uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/include/ro_sgns.h" "$(DESTDIR)$(PREFIX)/bin/ro-sgns" \
	    "$(DESTDIR)$(PREFIX)/lib/pkgconfig/ro_sgns.pc" "$(DESTDIR)$(PREFIX)/$(CMAKE_DIR)/ro_sgnsConfig.cmake" \
	    "$(DESTDIR)$(PREFIX)/$(CMAKE_DIR)/ro_sgnsConfigVersion.cmake" "$(DESTDIR)$(PREFIX)/$(DOC_DIR)/LICENSE"
	-rmdir "$(DESTDIR)$(PREFIX)/$(CMAKE_DIR)" "$(DESTDIR)$(PREFIX)/$(DOC_DIR)" 2> /dev/null

# TinyCC (Debian: tcc, 0.9.27): a C99 compiler outside the GCC and Clang
# family. It defines neither __GNUC__ nor a SIMD macro and has no OpenMP, so
# it builds the header's plain C99 paths only: the portable GEMM kernel, the
# fixed blocking table (no cpuid), no builtins, attributes or prefetches.
# Every suite in quick mode, float (it builds in a second and runs in about
# 50 s of one core); with SLOW=1 double too and the program built by tcc
# end to end (tests/test_cli.sh: its training runs are slow in tcc's
# code, several minutes). Without tcc it says so and skips (a failure
# under CI=true).
# (TCC, HAVE_TCC, TCC_BINS and TCC_ALL are set above, before bins; the
# suites' builds are test_rule's tcc_f and tcc_d.)
.PHONY: tcc
ifeq ($(HAVE_TCC),yes)
tcc: export RO_SGNS_TEST_TMP := $(B)/tcc
tcc: $(TCC_ALL)
	@mkdir -p $(B)/tcc
	@RO_SGNS_TEST_QUICK=1 sh tests/run.sh $(TCC_RUNS) \
	    $(if $(filter 1,$(SLOW)),"sh tests/test_cli.sh $(B)/ro-sgns-tcc $(B)/ro-sgns-tcc")
$(B)/ro-sgns-tcc: examples/ro_sgns_cli.c ro_sgns.h | $(B)
	$(V_tcc_f) $< -o $@ -lm
else
tcc:
	@echo "tcc: $(TCC) not found: skipped"
	@sh tests/run.sh "echo tcc: 0 passed, 0 failed, 1 skipped"
endif

# RO-SGNS over MPI (section 6 of the header): the example and its test's checker, when
# mpicc and mpirun exist (Debian: libopenmpi-dev openmpi-bin, or mpich);
# make check runs tests/test_mpi.sh (1, 2 and 3 ranks vs one process)
MPICC ?= mpicc
HAVE_MPI := $(shell command -v $(MPICC) >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 && echo yes)
.PHONY: mpi mpi-test
ifeq ($(HAVE_MPI),yes)
mpi: $(B)/ro_sgns_mpi $(B)/mpi_check
mpi-test: mpi
	@sh tests/run.sh "sh tests/test_mpi.sh $(B)/ro_sgns_mpi $(B)/mpi_check"
else
# without MPI it says so and skips, a failure under CI=true (as tcc's)
mpi:
	@echo "mpi: $(MPICC) or mpirun not found: skipped"
mpi-test:
	@echo "mpi: $(MPICC) or mpirun not found: skipped"
	@sh tests/run.sh "echo mpi: 0 passed, 0 failed, 1 skipped"
endif
# built with the rest by make check's first, parallel stage
bins: $(if $(filter yes,$(HAVE_MPI)),$(B)/ro_sgns_mpi $(B)/mpi_check)
$(B)/ro_sgns_mpi: examples/ro_sgns_mpi.c ro_sgns.h | $(B)
	$(MPICC) $(WARN) $(OPT) -fopenmp $< -o $@ -lm
$(B)/mpi_check: tests/mpi_check.c $(TEST_DEPS) | $(B)
	$(CC) $(WARN) $(OPT) -fopenmp $< -o $@ -lm

# make size-table: measure what each configuration of the header compiles to
# (gcc -Os and -O2, one object per switch of tests/configs.sh) and rewrite the
# table in docs/LIBRARY.md; make check's house rules check it (tests/style.sh
# runs sh tests/size_table.sh check)
.PHONY: size-table
size-table:
	@sh tests/size_table.sh write

# The main job (README): decompress the corpus, count, SVD-SPPMI and RO-SGNS
# at d = 100, print the paper's tables for our corpus.
# Without the data (README's Data section) it stops before building
# anything, with one message that says where to look.
DATA ?= ../shared/data
.PHONY: data-check
data-check:
	@DATA=$(DATA) CHECK_DATA=1 sh bench/paper.sh
# (the program after the check, even under -j)
demo: data-check
	@$(MAKE) --no-print-directory ro-sgns
	DATA=$(DATA) sh bench/paper.sh 100

# Every lever of RO-SGNS alone beside the baselines, d = 100, 200, 500, into
# docs/ABLATION.md (about an hour on 2 quiet cores; QUICK=1 for less)
ablation: $(B)/bench_quality
	mkdir -p docs
	sh bench/ablation.sh > docs/ABLATION.md.tmp && mv docs/ABLATION.md.tmp docs/ABLATION.md

# The full reproduction: d = 100, 200, 500 into docs/RESULTS.md and the
# Figure 1 plot (gnuplot, if installed) docs/figure1.svg.
paper: data-check
	@$(MAKE) --no-print-directory ro-sgns
	mkdir -p docs
	DATA=$(DATA) SGD=1 sh bench/paper.sh 100 200 500 > docs/RESULTS.md
	sh bench/figure1.sh build/paper/curve100.csv docs/figure1_d100.svg
	sh bench/figure1.sh build/paper/curve200.csv docs/figure1_d200.svg
	sh bench/figure1.sh build/paper/curve500.csv docs/figure1_d500.svg
