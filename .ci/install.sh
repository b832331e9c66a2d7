#!/usr/bin/env bash
# install.sh - everything the demo and the tests need on a fresh Debian 12
# machine, in one go: the README's first command runs it (as root, or with
# sudo) and .ci/run, CI's entry point, runs it too.
#   compilers and make          gcc, g++, clang (make test builds with both)
#   OpenBLAS and LAPACKE        make lapacke and the benchmarks compare with them
#   xz-utils                    make demo decompresses the bundled corpus
#   python3-gensim (and numpy)  tests/interop_gensim.sh reads our files with gensim;
#                               tests/test_python.sh compares the Python package with it
#   python3-pip, python3-venv   tests/test_python.sh: pip install ./python in a venv
#   Open MPI                    make mpi-test (examples/ro_sgns_mpi.c)
#   pkg-config                  tests/test_cli.sh builds against the installed .pc
#   cmake                       tests/test_package.sh builds README's example through
#                               find_package(ro_sgns) and add_subdirectory
#   locales (de_DE.UTF-8)       the readers' and writers' test under a decimal comma
#   cross compilers, qemu-user, mingw-w64, wine, valgrind: .ci/install-cross.sh
# DRY_RUN=1 only simulates (apt-get -s) and installs nothing.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
command -v apt-get >/dev/null 2>&1 || { echo "install.sh: needs apt-get (Debian or Ubuntu)" >&2; exit 1; }
pkgs="make gcc g++ clang libc6-dev libopenblas-dev liblapacke-dev xz-utils cmake
      python3-gensim python3-pip python3-venv libopenmpi-dev openmpi-bin pkg-config locales"
if [ "${DRY_RUN:-0}" = 1 ]; then
    # shellcheck disable=SC2086
    apt-get -s install -y --no-install-recommends $pkgs
    exit 0
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
# a locale with a decimal comma, for the readers' and writers' locale test
if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
    sed -i 's/^# *\(de_DE\.UTF-8 UTF-8\)/\1/' /etc/locale.gen
    grep -q '^de_DE\.UTF-8 UTF-8' /etc/locale.gen || echo 'de_DE.UTF-8 UTF-8' >> /etc/locale.gen
    locale-gen >/dev/null
fi
bash "$(dirname "$0")/install-cross.sh"
echo "install.sh: done"
