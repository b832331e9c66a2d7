#!/bin/sh
# bench/blas_root.sh - Debian 12's OpenBLAS 0.3.21 (pthreads) and LAPACKE
# unpacked into a folder, for a machine where they cannot be installed (no
# root, another distribution, no network): the benches then build and run
# against the same OpenBLAS as on a Debian machine.
#
#   sh bench/blas_root.sh DIR     on a Debian machine: downloads the packages
#                                 into DIR/debs (apt-get download, no root
#                                 needed) and unpacks them into DIR
#   sh bench/blas_root.sh DIR     on the other machine, after copying DIR/debs
#                                 there: unpacks them (dpkg-deb, or ar and tar)
#   BLAS_ROOT=DIR sh bench/cpu.sh   builds and runs the benches against it
#
# Nothing is installed: the libraries stay under DIR and the benches find
# them by their run path (bench/cpu.sh links with -Wl,-rpath).
set -eu
DIR=${1:?usage: sh bench/blas_root.sh DIR}
PKGS="libopenblas0-pthread libopenblas-pthread-dev liblapacke liblapacke-dev libtmglib3 libgfortran5"
mkdir -p "$DIR/debs"
DIR=$(cd "$DIR" && pwd) # absolute: the ar branch below unpacks from another folder
if ! ls "$DIR"/debs/*.deb >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || {
        echo "blas_root.sh: no .deb files in $DIR/debs and no apt-get to fetch them" >&2
        exit 1
    }
    # shellcheck disable=SC2086
    (cd "$DIR/debs" && apt-get download $PKGS)
fi
for f in "$DIR"/debs/*.deb; do
    if command -v dpkg-deb >/dev/null 2>&1; then
        dpkg-deb -x "$f" "$DIR"
    else # a .deb is an ar archive holding data.tar.*
        tmp=$(mktemp -d)
        (cd "$tmp" && ar x "$f" && tar -xf data.tar.* -C "$DIR")
        rm -rf "$tmp"
    fi
done
lib="$DIR/usr/lib/x86_64-linux-gnu"
ob="$lib/openblas-pthread"
# What Debian's alternatives system would have linked: the unversioned
# names the linker looks for, and the libraries LAPACKE loads at run time.
ln -sf libopenblasp-r0.3.21.so "$ob/libopenblas.so"
ln -sf libopenblasp-r0.3.21.so "$ob/libopenblas.so.0"
ln -sf liblapacke.so.3 "$lib/liblapacke.so"
echo "blas_root.sh: OpenBLAS and LAPACKE unpacked under $DIR"
