# mk/cross.mk - the test suite on other ABIs, and under valgrind.
#   make cross        build the tests with Debian's cross compilers and run them:
#                       aarch64  aarch64-linux-gnu-gcc, under qemu-aarch64: LP64,
#                                unsigned char, weakly ordered memory (OpenMP build)
#                       s390x    s390x-linux-gnu-gcc, under qemu-s390x: big-endian
#                                (not test_linalg, test_sgd: nothing byte-order-dependent)
#                       armhf    arm-linux-gnueabihf-gcc, under qemu-arm: 32-bit
#                                size_t and pointers
#                       mingw    x86_64-w64-mingw32-gcc -static, under wine: Windows,
#                                LLP64 (32-bit long), msvcrt stdio, CRLF consoles
#   make cross-NAME   one of them; cross-i386 (gcc -m32 under qemu-i386, x87 excess
#                     precision) exists too but is not in `cross`: qemu's x87 is slow.
#   make valgrind     the suite (-O1 -g, serial: libgomp confuses valgrind) under
#                     valgrind memcheck, leaks included.
#   make cross-bins   build all of them (make check: with -j2, then runs
#                     "make -j2 cross valgrind"; each target's tests write their
#                     scratch files under its own directory, RO_SGNS_TEST_TMP).
#
# Time: the emulated runs are 20-100x slower than native, so they set
# RO_SGNS_TEST_QUICK=1 (tests/test_util.h: tu_quick()) and each runs one real type;
# together they cover both: float on aarch64 and s390x, double on armhf, both on
# mingw. More:
#     make cross CROSS_TYPES="f d"        both types on every target
#     make valgrind VG_TYPES="f d"
# Packages: .ci/install-cross.sh. Included by the Makefile (after its TESTS).
# Every run ends with run.sh's "total: N passed, N failed" and the seconds it took.

B ?= build
CROSS_B       := $(B)/cross
# every test the Makefile runs (its TESTS), else every tests/test_*.c there is
CROSS_TESTS   ?= $(or $(TESTS),$(patsubst tests/test_%.c,%,$(wildcard tests/test_*.c)))
CROSS_DEPS    := $(sort ro_sgns.h tests/test_util.h $(TEST_DEPS))
CROSS_WARN    ?= -std=c99 -pedantic -Wall -Wextra -Wshadow -Wconversion -Werror
CROSS_CXXWARN ?= -x c++ -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Werror
CROSS_TARGETS ?= aarch64 s390x armhf mingw
# the compile tests: two RO_SGNS_STATIC copies, allocator macros in C and C++,
# RO_SGNS_NO_STDIO (each costs a compile of the whole header: only where useful)
CROSS_COMPILE_TESTS := static_f alloc_f alloc_cxx nostdio_f

# Per target: compilers, optimization (-O1 builds in half the time of -O2 and
# runs as fast under qemu; the native suite has -O2), how to run a binary, the
# tests to skip (CROSS_SKIP_x), the real types (f, d), which
# of them are built with -fopenmp (the 1/2/3-thread determinism tests; under
# qemu they are slow, and a serial build checks the no-OpenMP path), quick mode.
CROSS_CC_aarch64    := aarch64-linux-gnu-gcc
CROSS_CXX_aarch64   := aarch64-linux-gnu-g++
CROSS_OPT_aarch64   := -O1
CROSS_RUN_aarch64   := qemu-aarch64-static -L /usr/aarch64-linux-gnu
CROSS_TYPES_aarch64 := f
CROSS_OMP_aarch64   := f
CROSS_QUICK_aarch64 := 1

CROSS_CC_s390x      := s390x-linux-gnu-gcc
CROSS_CXX_s390x     := s390x-linux-gnu-g++
CROSS_OPT_s390x     := -O1
CROSS_RUN_s390x     := qemu-s390x-static -L /usr/s390x-linux-gnu
CROSS_TYPES_s390x   := f
CROSS_OMP_s390x     :=
# qemu-s390x is ~5x slower than qemu-aarch64 on floating point; the dense
# kernels (test_linalg) and SGD training (test_sgd: a byte tokenizer, uint64
# RNG, float math) do no byte-order-dependent work, so big-endian adds nothing
# there. make cross-s390x CROSS_SKIP_s390x= runs them too (+2 minutes).
CROSS_SKIP_s390x    := linalg sgd
CROSS_QUICK_s390x   := 1

CROSS_CC_armhf      := arm-linux-gnueabihf-gcc
CROSS_CXX_armhf     := arm-linux-gnueabihf-g++
CROSS_OPT_armhf     := -O1
CROSS_RUN_armhf     := qemu-arm-static -L /usr/arm-linux-gnueabihf
CROSS_TYPES_armhf   := d
CROSS_OMP_armhf     := f
CROSS_QUICK_armhf   := 1

# <asm/...> for -m32: gcc-multilib's /usr/include/asm link, which cannot be
# installed beside the cross compilers (.ci/install-cross.sh); last in the
# search, so only what is nowhere else (asm/) comes from there
CROSS_I386_INC      := -idirafter /usr/include/x86_64-linux-gnu
CROSS_CC_i386       := gcc -m32 $(CROSS_I386_INC)
CROSS_CXX_i386      := g++ -m32 $(CROSS_I386_INC)
CROSS_OPT_i386      := -O1
CROSS_RUN_i386      := qemu-i386-static
CROSS_TYPES_i386    := f d
CROSS_OMP_i386      :=
CROSS_QUICK_i386    := 1

# wine: headless, its own prefix under build/, no Mono/Gecko prompts
WINE ?= $(firstword $(wildcard /usr/bin/wine64 /usr/lib/wine/wine64 /usr/bin/wine) wine64)
CROSS_WINEPREFIX    := $(abspath $(CROSS_B))/wine
CROSS_WINEENV       := WINEPREFIX=$(CROSS_WINEPREFIX) WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
CROSS_CC_mingw      := x86_64-w64-mingw32-gcc
CROSS_CXX_mingw     := x86_64-w64-mingw32-g++
CROSS_OPT_mingw     := -O1
CROSS_LDFLAGS_mingw := -static
CROSS_EXE_mingw     := .exe
CROSS_RUN_mingw     := $(WINE)
CROSS_ENV_mingw     := $(CROSS_WINEENV)
CROSS_PRE_mingw     := $(CROSS_B)/wine/.ready
CROSS_TYPES_mingw   := f d
# OpenMP for float only: mingw's libgomp creates and closes 6 semaphores for
# each inactive parallel region (if (nt > 1) false, as in ro_sgns__gemm_run
# called inside the SGNS pass), and under wine each is a round trip to
# wineserver: test_ro takes 20-30 s with OpenMP, 5 s without
# (WINEDEBUG=+server counts 450k create_semaphore + close_handle)
CROSS_OMP_mingw     := f
# wine runs at native speed, but quick all the same (the big sizes add 15 s
# and nothing Windows-specific); CROSS_QUICK_mingw= runs everything
CROSS_QUICK_mingw   := 1
CROSS_EXTRA_mingw   := $(CROSS_COMPILE_TESTS)

$(CROSS_B)/wine/.ready:
	@mkdir -p $(@D)
	@echo "wine: creating the prefix $(CROSS_WINEPREFIX) (once)"
	@$(CROSS_WINEENV) $(WINE) wineboot --init >/dev/null 2>&1 || true
	@touch $@

# $(1) = target name. CROSS_TYPES on the command line overrides every target's.
define CROSS_template
CROSS_T_$(1) := $$(or $$(CROSS_TYPES),$$(CROSS_TYPES_$(1)))
CROSS_BINS_$(1) := $$(foreach t,$$(filter-out $$(CROSS_SKIP_$(1)),$$(CROSS_TESTS)),$$(foreach v,$$(CROSS_T_$(1)),$(CROSS_B)/$(1)/test_$$(t)_$$(v)$$(CROSS_EXE_$(1)))) \
    $$(foreach x,$$(CROSS_EXTRA_$(1)),$(CROSS_B)/$(1)/$$(x)$$(CROSS_EXE_$(1)))
CROSS_C_$(1)  = $$(CROSS_CC_$(1)) $$(CROSS_WARN) $$(CROSS_OPT_$(1))
CROSS_CX_$(1) = $$(CROSS_CXX_$(1)) $$(CROSS_CXXWARN) $$(CROSS_OPT_$(1))
CROSS_L_$(1)  = $$(CROSS_LDFLAGS_$(1)) -lm

$(CROSS_B)/$(1)/test_%_f$$(CROSS_EXE_$(1)): tests/test_%.c $$(CROSS_DEPS)
	@mkdir -p $$(@D)
	$$(CROSS_C_$(1)) $$(if $$(filter f,$$(CROSS_OMP_$(1))),-fopenmp) $$< -o $$@ $$(CROSS_L_$(1))
$(CROSS_B)/$(1)/test_%_d$$(CROSS_EXE_$(1)): tests/test_%.c $$(CROSS_DEPS)
	@mkdir -p $$(@D)
	$$(CROSS_C_$(1)) $$(if $$(filter d,$$(CROSS_OMP_$(1))),-fopenmp) -DRO_SGNS_REAL=double $$< -o $$@ $$(CROSS_L_$(1))
$(CROSS_B)/$(1)/static_f$$(CROSS_EXE_$(1)): tests/compile_static_a.c tests/compile_static_b.c tests/compile_static_main.c $$(CROSS_DEPS)
	@mkdir -p $$(@D)
	$$(CROSS_C_$(1)) $$(filter %.c,$$^) -o $$@ $$(CROSS_L_$(1))
$(CROSS_B)/$(1)/alloc_f$$(CROSS_EXE_$(1)): tests/compile_alloc.c $$(CROSS_DEPS)
	@mkdir -p $$(@D)
	$$(CROSS_C_$(1)) $$< -o $$@ $$(CROSS_L_$(1))
$(CROSS_B)/$(1)/alloc_cxx$$(CROSS_EXE_$(1)): tests/compile_alloc.c $$(CROSS_DEPS)
	@mkdir -p $$(@D)
	$$(CROSS_CX_$(1)) $$< -o $$@ $$(CROSS_L_$(1))
$(CROSS_B)/$(1)/nostdio_f$$(CROSS_EXE_$(1)): tests/compile_alloc.c $$(CROSS_DEPS)
	@mkdir -p $$(@D)
	$$(CROSS_C_$(1)) -DRO_SGNS_NO_STDIO $$< -o $$@ $$(CROSS_L_$(1))

.PHONY: cross-$(1)
cross-$(1): $$(CROSS_BINS_$(1)) $$(CROSS_PRE_$(1))
	@echo "== cross-$(1): $$(CROSS_CC_$(1)) $$(CROSS_OPT_$(1)), types $$(CROSS_T_$(1)) (OpenMP: $$(or $$(filter $$(CROSS_T_$(1)),$$(CROSS_OMP_$(1))),none)), run by $$(firstword $$(CROSS_RUN_$(1)))$$(if $$(CROSS_QUICK_$(1)), with RO_SGNS_TEST_QUICK=1)"
	@t0=$$$$(date +%s); \
	$$(CROSS_ENV_$(1)) RO_SGNS_TEST_QUICK=$$(CROSS_QUICK_$(1)) RO_SGNS_TEST_TMP=$(CROSS_B)/$(1) \
	    sh tests/run.sh $$(foreach b,$$(CROSS_BINS_$(1)),"$$(CROSS_RUN_$(1)) $$(b)"); rc=$$$$?; \
	echo "cross-$(1): $$$$(( $$$$(date +%s) - t0 )) s"; exit $$$$rc
endef
$(foreach c,aarch64 s390x armhf i386 mingw,$(eval $(call CROSS_template,$(c))))

.PHONY: cross
cross: $(addprefix cross-,$(CROSS_TARGETS))

# ------------------------------------------------------------------ valgrind
# float only by default (about 2.5 minutes); memory errors rarely depend on the type
VALGRIND ?= valgrind
VALGRIND_FLAGS ?= -q --error-exitcode=1 --leak-check=full
VG_TYPES ?= f
VG_BINS := $(foreach t,$(CROSS_TESTS),$(foreach v,$(VG_TYPES),$(CROSS_B)/vg/test_$(t)_$(v))) \
           $(CROSS_B)/vg/static_f $(CROSS_B)/vg/alloc_f
VG_C := $(CC) $(CROSS_WARN) -O1 -g

$(CROSS_B)/vg/test_%_f: tests/test_%.c $(CROSS_DEPS)
	@mkdir -p $(@D)
	$(VG_C) $< -o $@ -lm
$(CROSS_B)/vg/test_%_d: tests/test_%.c $(CROSS_DEPS)
	@mkdir -p $(@D)
	$(VG_C) -DRO_SGNS_REAL=double $< -o $@ -lm
$(CROSS_B)/vg/static_f: tests/compile_static_a.c tests/compile_static_b.c tests/compile_static_main.c $(CROSS_DEPS)
	@mkdir -p $(@D)
	$(VG_C) $(filter %.c,$^) -o $@ -lm
$(CROSS_B)/vg/alloc_f: tests/compile_alloc.c $(CROSS_DEPS)
	@mkdir -p $(@D)
	$(VG_C) $< -o $@ -lm

.PHONY: valgrind
valgrind: $(VG_BINS)
	@echo "== valgrind: $(VG_C), types $(VG_TYPES), RO_SGNS_TEST_QUICK=1"
	@t0=$$(date +%s); \
	RO_SGNS_TEST_QUICK=1 RO_SGNS_TEST_VALGRIND=1 RO_SGNS_TEST_TMP=$(CROSS_B)/vg sh tests/run.sh $(foreach b,$(VG_BINS),"$(VALGRIND) $(VALGRIND_FLAGS) $(b)"); rc=$$?; \
	echo "valgrind: $$(( $$(date +%s) - t0 )) s"; exit $$rc

# everything make cross and make valgrind run, built (and the wine prefix made)
.PHONY: cross-bins
cross-bins: $(foreach c,$(CROSS_TARGETS),$(CROSS_BINS_$(c)) $(CROSS_PRE_$(c))) $(VG_BINS)
