/* ro_sgns_lib.c - the shared library that python/ro_sgns.py loads
   (make build/libro_sgns.so: -fPIC -shared). It is the ro-sgns program
   (examples/ro_sgns_cli.c, which defines RO_SGNS_IMPLEMENTATION) with its
   main renamed, so it exports every public call of ro_sgns.h and

       int ro_sgns_cli_main(int argc, char **argv);

   which runs a command as `ro-sgns ARGS` does (exit status as return
   value, messages on stderr; it never exits or aborts). ro_sgns.train()
   calls it with "train" and the flags: the program's own train path, so
   the same flags give the same bits. */
#define main ro_sgns_cli_main
#include "../examples/ro_sgns_cli.c"
