# ro_sgns.h - build, test and bench.
#   make           ./ro-sgns, the command-line program (needs only gcc and make)
#   make install   the header, ro-sgns and a pkg-config file under PREFIX
#                  (default /usr/local; DESTDIR for staging); make uninstall
#   make check     everything CI runs (README's test command): test, asan, lapacke,
#                  cross and valgrind (mk/cross.mk), two at a time; mpi-test
#   make test      the suite with portable flags (-O2, no -march=native), float and
#                  double, gcc + OpenMP, clang without OpenMP, g++ as C++, and the
#                  AVX-512 kernels when this CPU has them
#   make asan      the suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make lapacke   the suite again with RO_SGNS_USE_CBLAS + RO_SGNS_USE_LAPACKE,
#                  comparing the built-in kernels with OpenBLAS/LAPACKE
#   make bench     benchmarks (-O3 -march=native), ours vs OpenBLAS side by side
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

TESTS := linalg count sppmi ro eval sgd robust
TEST_DEPS := ro_sgns.h tests/test_util.h tests/shard_comm.h

VARIANTS := f d cxx clang
ifeq ($(HAVE_AVX512),yes)
VARIANTS += simd_f simd_d
endif
TEST_BINS := $(foreach t,$(TESTS),$(foreach v,$(VARIANTS),$(B)/test_$(t)_$(v))) \
             $(B)/static_f $(B)/alloc_f $(B)/alloc_cxx $(B)/nostdio_f
ASAN_BINS := $(foreach t,$(TESTS),$(B)/test_$(t)_asan_f $(B)/test_$(t)_asan_d)
LAPACKE_BINS := $(foreach t,$(TESTS),$(B)/test_$(t)_lapacke_f $(B)/test_$(t)_lapacke_d)

.PHONY: all check bins test asan lapacke bench clean demo paper fuzz install uninstall
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
	@$(MAKE) --no-print-directory -j2 --output-sync=target asan test cross-mingw valgrind lapacke cross
	@$(MAKE) --no-print-directory mpi-test

bins: $(TEST_BINS) $(ASAN_BINS) $(LAPACKE_BINS) $(B)/ro-sgns-test $(B)/ro-sgns-asan $(B)/example_train

test: $(TEST_BINS) $(B)/ro-sgns-test $(B)/ro-sgns-asan $(B)/example_train
	@sh tests/run.sh $(TEST_BINS) "sh tests/test_cli.sh $(B)/ro-sgns-test $(B)/ro-sgns-asan" "sh tests/interop_gensim.sh" \
	    "sh tests/robust_coverage.sh"

asan: export RO_SGNS_TEST_TMP := $(B)/asan
asan: $(ASAN_BINS)
	@mkdir -p $(B)/asan
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 sh tests/run.sh $(ASAN_BINS)

lapacke: export RO_SGNS_TEST_TMP := $(B)/lapacke
lapacke: $(LAPACKE_BINS)
	@mkdir -p $(B)/lapacke
	@sh tests/run.sh $(LAPACKE_BINS)

$(B):
	@mkdir -p $(B)

# One rule per variant, from a table: the compiler and flags of variant v
# are V_v, extra libraries L_v (a test binary is build/test_<suite>_<v>).
V_f        := $(CC) $(WARN) $(OPT) -fopenmp
V_d        := $(V_f) -DRO_SGNS_REAL=double
V_cxx      := $(CXX) $(CXXWARN) $(OPT) -fopenmp
V_clang    := $(CLANG) $(WARN) $(OPT)
V_simd_f   := $(CC) $(WARN) $(OPT) -mavx512f -mfma -fopenmp
V_simd_d   := $(V_simd_f) -DRO_SGNS_REAL=double
V_asan_f   := $(CC) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
V_asan_d   := $(V_asan_f) -DRO_SGNS_REAL=double
V_lapacke_f := $(V_f) -DRO_SGNS_USE_CBLAS -DRO_SGNS_USE_LAPACKE
V_lapacke_d := $(V_lapacke_f) -DRO_SGNS_REAL=double
L_lapacke_f := $(BLASLIBS)
L_lapacke_d := $(BLASLIBS)
define test_rule
$$(B)/test_%_$(1): tests/test_%.c $$(TEST_DEPS) | $$(B)
	$$(V_$(1)) $$< -o $$@ $$(L_$(1)) -lm
endef
$(foreach v,f d cxx clang simd_f simd_d asan_f asan_d lapacke_f lapacke_d,$(eval $(call test_rule,$(v))))

# compile tests: two RO_SGNS_STATIC copies in one program; allocator macros in C
# and C++; RO_SGNS_NO_STDIO
$(B)/static_f: tests/compile_static_a.c tests/compile_static_b.c tests/compile_static_main.c $(TEST_DEPS) | $(B)
	$(CC) $(WARN) $(OPT) tests/compile_static_a.c tests/compile_static_b.c tests/compile_static_main.c -o $@ -lm
$(B)/alloc_f: tests/compile_alloc.c $(TEST_DEPS) | $(B)
	$(CC) $(WARN) $(OPT) $< -o $@ -lm
$(B)/alloc_cxx: tests/compile_alloc.c $(TEST_DEPS) | $(B)
	$(CXX) $(CXXWARN) $(OPT) $< -o $@ -lm
$(B)/nostdio_f: tests/compile_alloc.c $(TEST_DEPS) | $(B)
	$(CC) $(WARN) $(OPT) -DRO_SGNS_NO_STDIO $< -o $@ -lm

# ---------------------------------------------------------------- bench
$(B)/bench_gemm: bench/gemm.c ro_sgns.h | $(B)
	$(CC) -std=c99 -Wall -Wextra $(BENCHFLAGS) $< -o $@ $(BLASLIBS) -lm
$(B)/bench_gemm_d: bench/gemm.c ro_sgns.h | $(B)
	$(CC) -std=c99 -Wall -Wextra $(BENCHFLAGS) -DRO_SGNS_REAL=double $< -o $@ $(BLASLIBS) -lm

$(B)/bench_ro_d: bench/ro.c ro_sgns.h | $(B)
	$(CC) -std=c99 -Wall -Wextra $(BENCHFLAGS) -DRO_SGNS_REAL=double $< -o $@ $(BLASLIBS) -lm
$(B)/bench_%: bench/%.c ro_sgns.h | $(B)
	$(CC) -std=c99 -Wall -Wextra $(BENCHFLAGS) $< -o $@ $(BLASLIBS) -lm

bench: $(B)/bench_gemm $(B)/bench_gemm_d
	@echo "flags: $(CC) $(BENCHFLAGS) ($$($(CC) --version | head -n 1))"
	$(B)/bench_gemm
	$(B)/bench_gemm_d

# The pipeline at 22k and 81k words (bench/scale.sh; ~30 min, ~3 GB).
.PHONY: bench-scale
bench-scale: ro-sgns $(B)/bench_scale
	sh bench/scale.sh

# libFuzzer targets for every parser (not in the default run): FUZZ_SECONDS each
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

# cross compilers under qemu, mingw under wine, valgrind: make cross,
# make valgrind, both run by make check; packages: .ci/install-cross.sh
include mk/cross.mk

# ------------------------------------------------------------ programs
# the quick-start example must keep compiling (C and C++)
$(B)/example_train: examples/train.c ro_sgns.h | $(B)
	$(CC) $(WARN) $(OPT) -fopenmp $< -o $@ -lm
	$(CXX) $(CXXWARN) $(OPT) $< -o $@_cxx -lm

# the CLI with the test suite's portable flags, for tests/test_cli.sh, and
# under ASan + UBSan (float-cast-overflow too) for its error cases
$(B)/ro-sgns-test: examples/ro_sgns_cli.c ro_sgns.h | $(B)
	$(CC) $(WARN) $(OPT) -fopenmp $< -o $@ -lm
$(B)/ro-sgns-asan: examples/ro_sgns_cli.c ro_sgns.h | $(B)
	$(V_asan_f) -fsanitize=float-cast-overflow $< -o $@ -lm

ro-sgns: examples/ro_sgns_cli.c ro_sgns.h
	$(CC) -std=c99 -Wall -Wextra -O3 -march=native -fopenmp $< -o $@ -lm

# make install PREFIX=... [DESTDIR=...]: the header, the program and a
# pkg-config file (pkg-config --cflags --libs ro_sgns: -I... -lm; add
# -fopenmp for threads). INSTALL_BIN names the program to install (the
# tests install their own build).
PREFIX ?= /usr/local
INSTALL_BIN ?= ro-sgns
RO_SGNS_VERSION := $(shell awk '/define RO_SGNS_VERSION_(MAJOR|MINOR|PATCH)/ { v = v (v == "" ? "" : ".") $$3 } END { print v }' ro_sgns.h)
install: $(INSTALL_BIN)
	mkdir -p "$(DESTDIR)$(PREFIX)/include" "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/lib/pkgconfig"
	cp ro_sgns.h "$(DESTDIR)$(PREFIX)/include/ro_sgns.h"
	cp $(INSTALL_BIN) "$(DESTDIR)$(PREFIX)/bin/ro-sgns"
	chmod 755 "$(DESTDIR)$(PREFIX)/bin/ro-sgns"
	printf 'prefix=%s\nincludedir=$${prefix}/include\n\nName: ro_sgns\nDescription: %s\nVersion: %s\nCflags: -I$${includedir}\nLibs: -lm\n' \
	    "$(PREFIX)" "word embeddings by Riemannian optimization of SGNS (single header)" \
	    "$(RO_SGNS_VERSION)" > "$(DESTDIR)$(PREFIX)/lib/pkgconfig/ro_sgns.pc"
uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/include/ro_sgns.h" "$(DESTDIR)$(PREFIX)/bin/ro-sgns" \
	    "$(DESTDIR)$(PREFIX)/lib/pkgconfig/ro_sgns.pc"

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
mpi mpi-test:
	@echo "mpi: $(MPICC) or mpirun not found: skipped"
endif
$(B)/ro_sgns_mpi: examples/ro_sgns_mpi.c ro_sgns.h | $(B)
	$(MPICC) $(WARN) $(OPT) -fopenmp $< -o $@ -lm
$(B)/mpi_check: tests/mpi_check.c $(TEST_DEPS) | $(B)
	$(CC) $(WARN) $(OPT) -fopenmp $< -o $@ -lm

# The main job (README): decompress the corpus, count, SVD-SPPMI and RO-SGNS
# at d = 100, print the paper's tables for our corpus.
demo: ro-sgns
	sh bench/paper.sh 100

# The full reproduction: d = 100, 200, 500 into docs/RESULTS.md and the
# Figure 1 plot (gnuplot, if installed) docs/figure1.svg.
paper: ro-sgns
	mkdir -p docs
	SGD=1 sh bench/paper.sh 100 200 500 > docs/RESULTS.md
	sh bench/figure1.sh build/paper/curve100.csv docs/figure1_d100.svg
	sh bench/figure1.sh build/paper/curve200.csv docs/figure1_d200.svg
	sh bench/figure1.sh build/paper/curve500.csv docs/figure1_d500.svg
