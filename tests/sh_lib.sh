# sh_lib.sh - what the program's shell tests share (test_cli.sh,
# test_resume.sh, test_head.sh). Sourced from the repository root after
# NAME (the summary line's name), BIN and T are set: a fresh folder $T,
# the counters with ok and bad, and the test's end, failed, when $BIN is
# not built.
passed=0
failed=0
rm -rf "$T"
mkdir -p "$T"
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
[ -x "$BIN" ] || { echo "$NAME: $BIN not built (make ro-sgns)"; echo "$NAME: 0 passed, 1 failed"; exit 1; }
