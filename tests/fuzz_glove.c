/* fuzz_glove.c - libFuzzer target for the GloVe text reader; the checks are
   those of fuzz_w2v_text.c. Not part of the default test run.
       clang -g -O1 -fsanitize=fuzzer,address,undefined tests/fuzz_glove.c \
             -o build/fuzz_glove -lm */
#define FUZZ_FORMAT RO_SGNS_GLOVE_TEXT
#include "fuzz_w2v_text.c"
