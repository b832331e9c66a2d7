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
#                       riscv64  riscv64-linux-gnu-gcc, under qemu-riscv64
#                       ppc64le  powerpc64le-linux-gnu-gcc, under qemu-ppc64le
#                       wasm     clang --target=wasm32-wasi (wasi-libc), under node's
#                                WASI: 32-bit size_t, no threads, no fork or signals
#                       cortex-m arm-none-eabi-gcc for a Cortex-M4F with newlib: the
#                                step-alone program's size; run as 32-bit Arm Linux
#   make cross-NAME   one of them; cross-i386 (gcc -m32 under qemu-i386, x87 excess
#                     precision) exists too but is not in `cross`: qemu's x87 is slow.
#   make valgrind     the suite (-O1 -g, serial: libgomp confuses valgrind) under
#                     valgrind memcheck, leaks included.
#   make cross-bins   build all of them, valgrind's with SLOW=1 (make check
#                     builds with -j2, then runs "make -j2 cross" and, with
#                     SLOW=1, valgrind; each target's tests write their scratch
#                     files under its own directory, RO_SGNS_TEST_TMP).
#
# Time: the emulated runs are 20-100x slower than native, so they set
# RO_SGNS_TEST_QUICK=1 (tests/test_util.h: tu_quick()) and each runs one real type;
# together they cover both: float on aarch64, s390x, riscv64 and ppc64le,
# double on armhf, both on mingw with SLOW=1.
# What make check runs (its time is kept under 15 minutes on 2 cores): on
# each emulated target the smoke list CROSS_SMOKE, the suites whose results
# depend on the platform most (counting: the tokenizer's bytes, hashes,
# byte order, 32-bit sizes; the file formats; the method alone, a few RO
# steps from counts in memory); mingw and wasm run natively fast and run
# every suite, mingw in float and serial (its OpenMP under wine costs a
# minute: below). The emulated runs of the dense kernels and
# the full step (test_suites linalg, sppmi, ro: 2-5 minutes each under
# qemu) and valgrind are SLOW=1's:
#     make check SLOW=1 (or make cross SLOW=1)   every suite of CROSS_TESTS
#                                               on every target, mingw in f and d,
#                                               and make valgrind (~50 minutes)
#     make cross CROSS_TYPES="f d"        both types on every target
#     make valgrind VG_TYPES="f d"
# Packages: .ci/install-cross.sh. Included by the Makefile (after its TESTS).
# Every run ends with run.sh's "total: N passed, N failed" and the seconds it took.

B ?= build
CROSS_B       := $(B)/cross
# every test the Makefile runs (its TESTS), else every tests/test_*.c there is
CROSS_TESTS   ?= $(or $(TESTS),$(patsubst tests/test_%.c,%,$(wildcard tests/test_*.c)))
CROSS_DEPS    := $(sort ro_sgns.h tests/test_util.h $(TEST_DEPS) $(UNITY_SRC))
CROSS_WARN    ?= -std=c99 -pedantic -Wall -Wextra -Wshadow -Wconversion -Werror
CROSS_CXXWARN ?= -x c++ -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Werror
CROSS_TARGETS ?= aarch64 s390x armhf mingw riscv64 ppc64le wasm cortex-m
CROSS_SMOKE   ?= count files step_alone
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

# the other 64-bit Linux ISAs: RISC-V (RV64GC, LP64D; no SIMD kernel, the
# portable one) and little-endian POWER (ppc64le: char unsigned, 128-bit long
# double); quick, float, serial. With SLOW=1 the suites of the method and its formats
# (linalg, count, ro, eval, files, step_alone), not sppmi (the start: the
# kernels linalg and ro run), sgd (no ISA-dependent code) nor robust (the
# allocation sweep; aarch64 runs it on a little-endian LP64 target): under
# qemu-riscv64 on Zen 1 they took 34, 21 and 8 CPU s of 4 minutes, linalg 93.
CROSS_CC_riscv64    := riscv64-linux-gnu-gcc
CROSS_CXX_riscv64   := riscv64-linux-gnu-g++
CROSS_OPT_riscv64   := -O1
CROSS_RUN_riscv64   := qemu-riscv64-static -L /usr/riscv64-linux-gnu
CROSS_TYPES_riscv64 := f
CROSS_OMP_riscv64   :=
CROSS_SKIP_riscv64  := sppmi sgd robust
CROSS_QUICK_riscv64 := 1

CROSS_CC_ppc64le    := powerpc64le-linux-gnu-gcc
CROSS_CXX_ppc64le   := powerpc64le-linux-gnu-g++
CROSS_OPT_ppc64le   := -O1
CROSS_RUN_ppc64le   := qemu-ppc64le-static -L /usr/powerpc64le-linux-gnu
CROSS_TYPES_ppc64le := f
CROSS_OMP_ppc64le   :=
# and not linalg: qemu-ppc64le is slow at floating point (as qemu-s390x is;
# linalg had run 3.7 CPU minutes, unfinished, when it was stopped); its dense
# kernels are the portable C that riscv64 and aarch64 run
CROSS_SKIP_ppc64le  := linalg sppmi sgd robust
CROSS_QUICK_ppc64le := 1

# WebAssembly (wasm32-wasi): clang with Debian's wasi-libc and the wasm32
# compiler-rt, run by node's WASI (tests/wasi_run.mjs: the current folder and
# ../shared are the program's folders). 32-bit size_t, no threads (no
# OpenMP), no fork or signals: test_robust (forked savers, FIFOs, file size
# limits) is left out; the files suites run in the folders node opens.
WASM_CC ?= clang-14
CROSS_CC_wasm       := $(WASM_CC) --target=wasm32-wasi
CROSS_CXX_wasm      := $(subst clang,clang++,$(WASM_CC)) --target=wasm32-wasi
CROSS_OPT_wasm      := -O1
CROSS_EXE_wasm      := .wasm
# wasm-ld gives the stack 64 KB; test_count keeps 112 KB of arrays there
# (the library's largest frame is an 8 KB buffer)
CROSS_LDFLAGS_wasm  := -Wl,-z,stack-size=1048576
CROSS_RUN_wasm      := node --experimental-wasi-unstable-preview1 --no-warnings tests/wasi_run.mjs
CROSS_TYPES_wasm    := f
CROSS_OMP_wasm      :=
CROSS_SKIP_wasm     := robust
CROSS_SMOKE_wasm    := $(CROSS_TESTS)
CROSS_QUICK_wasm    := 1

# What a target needs, checked when make reads this file: commands on the
# PATH, or files by absolute path. A target whose needs are missing says
# which and skips (tests/run.sh: a failure under CI=true, where
# .ci/install-cross.sh has installed them all); its binaries are not built.
CROSS_NEEDS_riscv64 := riscv64-linux-gnu-gcc qemu-riscv64-static
CROSS_NEEDS_ppc64le := powerpc64le-linux-gnu-gcc qemu-ppc64le-static
CROSS_NEEDS_wasm    := $(WASM_CC) wasm-ld-14 node /usr/include/wasm32-wasi/stdio.h \
                       /usr/lib/llvm-14/lib/clang/14.0.6/lib/wasi/libclang_rt.builtins-wasm32.a
cross_missing = $(shell for x in $(CROSS_NEEDS_$(1)); do \
    case $$x in (/*) test -e $$x ;; (*) command -v $$x ;; esac >/dev/null 2>&1 || { echo $$x; break; }; done)

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
CROSS_TYPES_mingw   := $(if $(filter 1,$(SLOW)),f d,f)
CROSS_SMOKE_mingw   := $(CROSS_TESTS)
# OpenMP for float with SLOW=1 only: mingw's libgomp creates and closes 6
# semaphores for each inactive parallel region (if (nt > 1) false, as in
# ro_sgns__gemm_run called inside the SGNS pass), and under wine each is a
# round trip to wineserver: test_suites ro takes about 60 s with OpenMP
# (Zen 1, 2026-12-02), 5 s without (WINEDEBUG=+server counts 450k
# create_semaphore + close_handle)
CROSS_OMP_mingw     := $(if $(filter 1,$(SLOW)),f)
# wine runs at native speed, but quick all the same (the big sizes add 15 s
# and nothing Windows-specific); CROSS_QUICK_mingw= runs everything
CROSS_QUICK_mingw   := 1
CROSS_EXTRA_mingw   := $(CROSS_COMPILE_TESTS)

$(CROSS_B)/wine/.ready:
	@mkdir -p $(@D)
	@echo "wine: creating the prefix $(CROSS_WINEPREFIX) (once)"
	@$(CROSS_WINEENV) $(WINE) wineboot --init >/dev/null 2>&1 || true
	@touch $@

# cross_prog(target,suite,type): the program that runs a suite there (the
# seven of tests/test_suites.c are one program, as in the Makefile);
# cross_arg(suite): what that program is told to run
cross_prog = $(CROSS_B)/$(1)/test_$(if $(filter $(2),$(UNITY_TESTS)),suites,$(2))_$(3)$(CROSS_EXE_$(1))
cross_arg = $(if $(filter $(1),$(UNITY_TESTS)), $(1))

# $(1) = target name. CROSS_TYPES on the command line overrides every target's.
define CROSS_template
CROSS_T_$(1) := $$(or $$(CROSS_TYPES),$$(CROSS_TYPES_$(1)))
CROSS_S_$(1) := $$(filter-out $$(CROSS_SKIP_$(1)),$$(if $$(filter 1,$$(SLOW)),$$(CROSS_TESTS),$$(or $$(CROSS_SMOKE_$(1)),$$(CROSS_SMOKE))))
CROSS_BINS_$(1) := $$(sort $$(foreach t,$$(CROSS_S_$(1)),$$(foreach v,$$(CROSS_T_$(1)),$$(call cross_prog,$(1),$$(t),$$(v))))) \
    $$(foreach x,$$(CROSS_EXTRA_$(1)),$(CROSS_B)/$(1)/$$(x)$$(CROSS_EXE_$(1)))
CROSS_RUNS_$(1) := $$(foreach t,$$(CROSS_S_$(1)),$$(foreach v,$$(CROSS_T_$(1)),"$$(CROSS_RUN_$(1)) $$(call cross_prog,$(1),$$(t),$$(v))$$(call cross_arg,$$(t))")) \
    $$(foreach x,$$(CROSS_EXTRA_$(1)),"$$(CROSS_RUN_$(1)) $(CROSS_B)/$(1)/$$(x)$$(CROSS_EXE_$(1))")
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
	$$(CROSS_C_$(1)) $$(filter tests/compile_static_%.c,$$^) -o $$@ $$(CROSS_L_$(1))
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
CROSS_MISSING_$(1) := $$(call cross_missing,$(1))
ifneq ($$(CROSS_MISSING_$(1)),)
cross-$(1):
	@echo "cross-$(1): $$(CROSS_MISSING_$(1)) not found: skipped (.ci/install-cross.sh installs it)"
	@sh tests/run.sh "echo cross-$(1): 0 passed, 0 failed, 1 skipped"
else
cross-$(1): $$(CROSS_BINS_$(1)) $$(CROSS_PRE_$(1))
	@echo "== cross-$(1): $$(CROSS_CC_$(1)) $$(CROSS_OPT_$(1)), types $$(CROSS_T_$(1)) (OpenMP: $$(or $$(filter $$(CROSS_T_$(1)),$$(CROSS_OMP_$(1))),none)), run by $$(firstword $$(CROSS_RUN_$(1)))$$(if $$(CROSS_QUICK_$(1)), with RO_SGNS_TEST_QUICK=1)"
	@t0=$$$$(date +%s); \
	$$(CROSS_ENV_$(1)) RO_SGNS_TEST_QUICK=$$(CROSS_QUICK_$(1)) RO_SGNS_TEST_TMP=$(CROSS_B)/$(1) \
	    sh tests/run.sh $$(CROSS_RUNS_$(1)); rc=$$$$?; \
	echo "cross-$(1): $$$$(( $$$$(date +%s) - t0 )) s"; exit $$$$rc
endif
endef
$(foreach c,aarch64 s390x armhf i386 mingw riscv64 ppc64le wasm,$(eval $(call CROSS_template,$(c))))

# ------------------------------------------------------------------ Cortex-M
# The step-alone configuration (RO_SGNS_STEP_ONLY) on a microcontroller:
# tests/cortex_m.c (counts in memory, the start, 5 RO steps, the vectors)
# linked for a Cortex-M4F (single precision in hardware, double in
# software) against newlib's nano C library with its stubs (nosys), -Os and
# --gc-sections. make cross-cortex-m prints the program's size and that of
# the library's object alone (all of the step-alone configuration). Nothing
# runs it there (a board or qemu-system-arm); the same source and
# configuration built for 32-bit Arm Linux (thumb, hard float, -Os) runs
# under qemu-arm and is compared with the x86-64 float build
# (tests/cortex_m.sh says the tolerances).
CM_CC    ?= arm-none-eabi-gcc
CM_FLAGS := -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -Os
CM_LD    := -Wl,--gc-sections --specs=nano.specs --specs=nosys.specs
CM_ARMHF := arm-linux-gnueabihf-gcc -mthumb -mfpu=vfpv4-d16 -mfloat-abi=hard -Os
CM_B     := $(CROSS_B)/cortex-m
CROSS_NEEDS_cortex-m := $(CM_CC) arm-none-eabi-size arm-linux-gnueabihf-gcc qemu-arm-static \
                        /usr/lib/arm-none-eabi/newlib/thumb/v7e-m+fp/hard/libc_nano.a
CROSS_MISSING_cortex-m := $(call cross_missing,cortex-m)
CROSS_BINS_cortex-m := $(CM_B)/cortex_m.elf $(CM_B)/step_only.o $(CM_B)/cortex_m_armhf $(CM_B)/cortex_m_x86
$(CM_B)/cortex_m.elf: tests/cortex_m.c tests/sppmi_csr.h ro_sgns.h
	@mkdir -p $(@D)
	$(CM_CC) $(CROSS_WARN) $(CM_FLAGS) -ffunction-sections -fdata-sections $< -o $@ $(CM_LD) -lm
$(CM_B)/step_only.o: ro_sgns.h
	@mkdir -p $(@D)
	printf '#define RO_SGNS_STEP_ONLY\n#define RO_SGNS_IMPLEMENTATION\n#include "ro_sgns.h"\n' | \
	    $(CM_CC) $(CROSS_WARN) $(CM_FLAGS) -I. -x c -c - -o $@
$(CM_B)/cortex_m_armhf: tests/cortex_m.c tests/sppmi_csr.h ro_sgns.h
	@mkdir -p $(@D)
	$(CM_ARMHF) $(CROSS_WARN) $< -o $@ -lm
$(CM_B)/cortex_m_x86: tests/cortex_m.c tests/sppmi_csr.h ro_sgns.h
	@mkdir -p $(@D)
	$(CC) $(CROSS_WARN) -O2 $< -o $@ -lm
.PHONY: cross-cortex-m
ifneq ($(CROSS_MISSING_cortex-m),)
cross-cortex-m:
	@echo "cross-cortex-m: $(CROSS_MISSING_cortex-m) not found: skipped (.ci/install-cross.sh installs it)"
	@sh tests/run.sh "echo cross-cortex-m: 0 passed, 0 failed, 1 skipped"
else
cross-cortex-m: $(CROSS_BINS_cortex-m)
	@echo "== cross-cortex-m: $(CM_CC) $(CM_FLAGS), newlib nano; run as 32-bit Arm Linux under qemu-arm"
	@arm-none-eabi-size $(CM_B)/cortex_m.elf $(CM_B)/step_only.o
	@RO_SGNS_TEST_TMP=$(CM_B) sh tests/run.sh \
	    "sh tests/cortex_m.sh $(CM_B)/cortex_m_x86 qemu-arm-static -L /usr/arm-linux-gnueabihf $(CM_B)/cortex_m_armhf"
endif

.PHONY: cross
cross: $(addprefix cross-,$(CROSS_TARGETS))

# ------------------------------------------------------------------ valgrind
# float only by default (about 2.5 minutes); memory errors rarely depend on the type
VALGRIND ?= valgrind
VALGRIND_FLAGS ?= -q --error-exitcode=1 --leak-check=full
VG_TYPES ?= f
VG_BINS := $(sort $(foreach t,$(CROSS_TESTS),$(foreach v,$(VG_TYPES),$(call cross_prog,vg,$(t),$(v))))) \
           $(CROSS_B)/vg/static_f $(CROSS_B)/vg/alloc_f
VG_RUNS := $(foreach t,$(CROSS_TESTS),$(foreach v,$(VG_TYPES),"$(VALGRIND) $(VALGRIND_FLAGS) $(call cross_prog,vg,$(t),$(v))$(call cross_arg,$(t))")) \
           $(foreach b,$(CROSS_B)/vg/static_f $(CROSS_B)/vg/alloc_f,"$(VALGRIND) $(VALGRIND_FLAGS) $(b)")
VG_C := $(CC) $(CROSS_WARN) -O1 -g

$(CROSS_B)/vg/test_%_f: tests/test_%.c $(CROSS_DEPS)
	@mkdir -p $(@D)
	$(VG_C) $< -o $@ -lm
$(CROSS_B)/vg/test_%_d: tests/test_%.c $(CROSS_DEPS)
	@mkdir -p $(@D)
	$(VG_C) -DRO_SGNS_REAL=double $< -o $@ -lm
$(CROSS_B)/vg/static_f: tests/compile_static_a.c tests/compile_static_b.c tests/compile_static_main.c $(CROSS_DEPS)
	@mkdir -p $(@D)
	$(VG_C) $(filter tests/compile_static_%.c,$^) -o $@ -lm
$(CROSS_B)/vg/alloc_f: tests/compile_alloc.c $(CROSS_DEPS)
	@mkdir -p $(@D)
	$(VG_C) $< -o $@ -lm

.PHONY: valgrind
valgrind: $(VG_BINS)
	@echo "== valgrind: $(VG_C), types $(VG_TYPES), RO_SGNS_TEST_QUICK=1"
	@t0=$$(date +%s); \
	RO_SGNS_TEST_QUICK=1 RO_SGNS_TEST_VALGRIND=1 RO_SGNS_TEST_TMP=$(CROSS_B)/vg sh tests/run.sh $(VG_RUNS); rc=$$?; \
	echo "valgrind: $$(( $$(date +%s) - t0 )) s"; exit $$rc

# everything make cross and make valgrind run, built (and the wine prefix made)
.PHONY: cross-bins
cross-bins: $(foreach c,$(CROSS_TARGETS),$(if $(CROSS_MISSING_$(c)),,$(CROSS_BINS_$(c)) $(CROSS_PRE_$(c)))) \
            $(if $(filter 1,$(SLOW)),$(VG_BINS))
