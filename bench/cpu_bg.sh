#!/bin/sh
# bench/cpu_bg.sh - bench/cpu.sh detached from the shell that starts it, for
# a machine lent call by call: each command has a time cap, and the machine
# is kept only while calls follow each other. One call starts the run and
# returns the summary of what finished by then; the next waits for the rest.
# The run goes on between the calls, so the time between them is not lost.
#
#   sh bench/cpu_bg.sh start SECONDS   start bench/cpu.sh (with the environment
#                                      given: PARTS, BUDGET, ...) in its own
#                                      session, wait SECONDS, print the summary
#                                      of the parts done so far
#   sh bench/cpu_bg.sh wait SECONDS    wait until the run ends, or SECONDS at
#                                      most, and print its summary
#
# Its output and progress go to CPU_DIR/bg.md and CPU_DIR/bg.err (CPU_DIR as
# in bench/cpu.sh, build/cpu); CPU_DIR/bg.done is made when it ends. The
# summary goes to standard output, the progress lines to standard error.
set -eu
CPU_DIR=${CPU_DIR:-build/cpu}
export CPU_DIR
what=${1:-}
secs=${2:-}
case $secs in
'' | *[!0-9]*) echo "usage: sh bench/cpu_bg.sh start|wait SECONDS" >&2; exit 2 ;;
esac
here=$(dirname "$0")

# wait up to $secs for bg.done, then print the summary: the run's own when it
# ended, else bench/cpu.sh's summary of the logs there are
finish() {
    i=0
    while [ ! -e "$CPU_DIR/bg.done" ] && [ "$i" -lt "$secs" ]; do
        sleep 2
        i=$((i + 2))
    done
    cat "$CPU_DIR/bg.err" >&2 2>/dev/null || true
    if [ -e "$CPU_DIR/bg.done" ]; then
        cat "$CPU_DIR/bg.md"
    else
        echo "(the run is still going: the parts done so far)" >&2
        PARTS=summary sh "$here/cpu.sh"
    fi
}

case $what in
start)
    mkdir -p "$CPU_DIR"
    rm -f "$CPU_DIR/bg.done" "$CPU_DIR/bg.md" "$CPU_DIR/bg.err"
    # what the summary of an unfinished run needs, for the call that waits
    for v in LANES ALONE RO_RUNS ROUNDS; do
        eval "x=\${$v-}"
        [ -z "$x" ] || printf "%s='%s'\nexport %s\n" "$v" "$x" "$v"
    done > "$CPU_DIR/bg.env"
    # setsid: a session of its own, so that the end of the calling command
    # (whose processes a lent machine ends) does not end the run
    # shellcheck disable=SC2016 # $1, $2: expanded by the inner sh
    setsid sh -c 'sh "$1/cpu.sh" > "$2/bg.md" 2> "$2/bg.err"; touch "$2/bg.done"' \
        sh "$here" "$CPU_DIR" < /dev/null > /dev/null 2>&1 &
    finish
    ;;
wait)
    [ -e "$CPU_DIR/bg.err" ] || {
        echo "bench/cpu_bg.sh: no run was started in $CPU_DIR (a fresh machine?)" >&2
        exit 1
    }
    # shellcheck disable=SC1091 # written by start
    . "$CPU_DIR/bg.env"
    finish
    ;;
*) echo "usage: sh bench/cpu_bg.sh start|wait SECONDS" >&2; exit 2 ;;
esac
