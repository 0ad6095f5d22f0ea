/*
 * mp_client_name.c: gex_Client_Init accepts a client name outside the spec's
 * pattern [A-Z][A-Z0-9_]+ (argv[1], or "testhello" as GASNet's own tests
 * spell theirs) and gex_Client_QueryName returns it; the library keeps its
 * own copy, so overwriting the caller's buffer changes nothing.
 */
#include "mp_util.h"

int main(int argc, char **argv)
{
    char name[256];
    snprintf(name, sizeof name, "%s", argc > 1 ? argv[1] : "testhello");
    char want[256];
    memcpy(want, name, sizeof want);
    mp_init(&argc, &argv, name, 0);
    memset(name, 'X', sizeof name - 1);
    CHECK_MSG(!strcmp(gex_Client_QueryName(mp_client), want), "gex_Client_QueryName: '%s'",
              gex_Client_QueryName(mp_client));
    mp_finish("client name '%s' accepted", want);
}
