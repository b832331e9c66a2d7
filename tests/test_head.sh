#!/bin/sh
# test_head.sh - the default run's head and tail through the program: on
# corpora made here (tests/head_corpus.awk), more than 20,000 distinct
# words, `ro-sgns train` at its defaults (small -size, one SGD epoch over
# 2% of the text, no RO step: -steps 0) picks as its head the words seen
# 200 times or more
# (kind A: more than 20,000 of them, 40 seen exactly 200 times) or, when
# fewer, the 20,000 most frequent (kind B: the minimum); the head it
# reports ("head: RO on the N most frequent ...") is checked against a
# count made here by awk, and the fold's output against the vocabulary
# (every word with -min-count 5, each vector once, finite). About 30 s.
#   sh tests/test_head.sh [path/to/ro-sgns]   (from the repository root)
BIN=${1:-./ro-sgns}
T=${RO_SGNS_TEST_TMP:-build}/head_test
NAME=head
. tests/sh_lib.sh

# kind MIN_HEAD: the corpus, the default run on it, its head and output
for kind in A B; do
    awk -v kind=$kind -f tests/head_corpus.awk > "$T/$kind.txt"
    # the independent count: words seen 200 times or more, 5 or more (-min-count)
    set -- $(awk '{ for (i = 1; i <= NF; i++) c[$i]++ }
                  END { for (w in c) { h += c[w] >= 200; v += c[w] >= 5; e += c[w] == 200 } print h + 0, v + 0, e + 0 }' "$T/$kind.txt")
    heavy=$1 vocab=$2 at200=$3
    want=$heavy
    [ "$want" -lt 20000 ] && want=20000
    [ "$want" -gt "$vocab" ] && want=$vocab
    if [ "$kind" = A ]; then
        [ "$heavy" -gt 20000 ] && [ "$at200" -gt 0 ] && ok || bad "corpus A: $heavy words seen 200 times or more ($at200 exactly), not over 20,000"
    else
        [ "$heavy" -lt 20000 ] && [ "$vocab" -gt 20000 ] && ok || bad "corpus B: $heavy words seen 200 times or more of $vocab, not under 20,000 of more"
    fi
    if nice -n 5 "$BIN" train -train "$T/$kind.txt" -output "$T/$kind.vec" -size 2 -iter 1 -init-share 0.02 -steps 0 \
        > "$T/out" 2> "$T/err"; then ok; else bad "corpus $kind: train exited $?: $(tail -c 400 "$T/err")"; fi
    got=$(sed -n 's/^head: RO on the \([0-9]*\) most frequent words and contexts; the other \([0-9]*\) folded.*/\1 \2/p' "$T/err")
    [ "$got" = "$want $((vocab - want))" ] && ok ||
        bad "corpus $kind: the head is '$got' (head, folded), want '$want $((vocab - want))': $heavy words seen 200 times or more, $vocab in the vocabulary"
    grep -q '^fold: .* rows' "$T/err" && ok || bad "corpus $kind: no fold line: $(tail -c 300 "$T/err")"
    # the vectors: a header "n 2", every vocabulary word once, finite values
    if [ -f "$T/$kind.vec" ] && awk -v n="$vocab" '
        NR == 1 { ok = $1 == n && $2 == 2; next }
        { if (NF != 3 || seen[$1]++ || $2 + 0 != $2 + 0 || $3 + 0 != $3 + 0 || $2 ~ /[nN]/ || $3 ~ /[nN]/) ok = 0; rows++ }
        END { exit !(ok && rows == n) }' "$T/$kind.vec"; then ok; else
        bad "corpus $kind: the vectors file is not $vocab finite rows of 2: $(head -c 200 "$T/$kind.vec" 2>/dev/null)"
    fi
done
rm -rf "$T"
echo "head: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
