#!/usr/bin/env bash
# CI: what `make cross` (mk/cross.mk) needs on a fresh Debian 12 machine:
# cross compilers for aarch64, s390x (big-endian), 32-bit Arm, riscv64 and
# ppc64le, run under qemu-user; clang with wasi-libc for wasm32-wasi, run by
# node's WASI; arm-none-eabi-gcc and newlib for the Cortex-M build; mingw-w64
# run under wine; valgrind for `make valgrind`; tcc (TinyCC) for `make tcc`.
# Idempotent and quiet: installs only what is missing.
#
# Never install gcc-multilib here: it Conflicts with every gcc-*-linux-gnu
# cross compiler and apt would silently remove them. gcc-12-multilib (what
# `gcc -m32` needs, for the optional cross-i386 target) and g++-12-multilib
# have no such conflict.
#
# The riscv64 and ppc64le C libraries' headers are only Recommends of their
# gcc packages, which --no-install-recommends skips: named here, or the cross
# gcc falls back to the host's /usr/include and fails on <asm/errno.h>.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
command -v apt-get >/dev/null 2>&1 || exit 0

pkgs="make gcc g++ libc6-dev valgrind qemu-user-static wine64 tcc
      gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
      gcc-s390x-linux-gnu g++-s390x-linux-gnu
      gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf
      gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64
      gcc-12-multilib g++-12-multilib
      gcc-riscv64-linux-gnu gcc-powerpc64le-linux-gnu
      libc6-dev-riscv64-cross libc6-dev-ppc64el-cross
      clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32 nodejs
      gcc-arm-none-eabi libnewlib-arm-none-eabi"

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-cross.sh: installing$missing"
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
