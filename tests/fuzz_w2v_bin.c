/* fuzz_w2v_bin.c - libFuzzer target for the word2vec binary reader; the
   checks are those of fuzz_w2v_text.c. Not part of the default test run.
       clang -g -O1 -fsanitize=fuzzer,address,undefined tests/fuzz_w2v_bin.c \
             -o build/fuzz_w2v_bin -lm */
#define FUZZ_FORMAT RO_SGNS_W2V_BINARY
#include "fuzz_w2v_text.c"
