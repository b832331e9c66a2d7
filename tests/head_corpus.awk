# head_corpus.awk - a corpus whose word counts are set exactly, for the
# default run's head (tests/test_head.sh): word w<i> is seen count(i)
# times. -v kind=A: 20,000 words 201 times, 40 at exactly 200, 20 at
# 199, 940 at 5: more than 20,000 words seen 200 times or more, so the
# threshold decides the head; kind=B: 100 words 250 times and 20,300 at
# 5: fewer, so the head's minimum (20,000) does. Round r writes every
# word seen r times or more, 20 to a line, in a fixed shuffled order (so
# that rare words have frequent neighbours).
#   awk -v kind=A -f tests/head_corpus.awk > a.txt   (4.0M tokens, 25 MB; B: 126,500)
function count(i) {
    if (kind == "A") return i <= 20000 ? 201 : i <= 20040 ? 200 : i <= 20060 ? 199 : 5
    return i <= 100 ? 250 : 5
}
BEGIN {
    n = kind == "A" ? 21000 : 20400
    top = kind == "A" ? 201 : 250
    for (j = 0; j < n; j++) order[j] = (j * 7919) % n + 1 # 7919: prime, not a factor of n
    for (r = 1; r <= top; r++) {
        k = 0
        for (j = 0; j < n; j++) {
            i = order[j]
            if (count(i) < r) continue
            printf "%s%s", (k % 20 ? " " : (k ? "\n" : "")), "w" i
            k++
        }
        if (k) printf "\n"
    }
}
