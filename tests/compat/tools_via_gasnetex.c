/*
 * tools_via_gasnetex.c: the spec's header list says "gasnetex.h : GASNet-EX
 * API + Tools", so a client that includes gasnetex.h alone (first, as
 * README-tools asks) and is compiled in a strict ISO mode can use the tools:
 * timers, atomics, the page size and platform macros, with the tools' thread
 * mode following the client's (GASNET_PAR by default: GASNETT_THREAD_SAFE).
 * Runs as a plain process (no gasnet calls); exits 0 when all checks hold.
 */
#include <gasnetex.h>
#include <stdio.h>

#if !defined(GASNET_TOOLS_H) || !defined(GASNETT_THREAD_SAFE) || defined(GASNETT_THREAD_SINGLE)
#error "gasnetex.h must provide the tools in GASNETT_THREAD_SAFE mode for a GASNET_PAR client"
#endif
#if GASNETT_PAGESIZE != GASNET_PAGESIZE || !defined(PLATFORM_OS_LINUX)
#error "tools macros"
#endif

int main(void)
{
    int fails = 0;
    gasnett_tick_t t0 = gasnett_ticks_now();
    gasnett_atomic_t a = gasnett_atomic_init(41);
    gasnett_atomic_increment(&a, 0);
    if (gasnett_atomic_read(&a, 0) != 42) fails++;
    gasnett_nsleep(1000);
    if (gasnett_ticks_to_ns(gasnett_ticks_now() - t0) < 1000) fails++;
    printf("tools_via_gasnetex: %s\n", fails ? "FAIL" : "PASS");
    return fails != 0;
}
