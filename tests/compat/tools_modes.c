/*
 * tools_modes.c: a tools-only client that names no thread mode, or asks
 * for GASNet's LITE_MODE, still compiles and works (README-tools; GASNet
 * accepts both).  Built twice (tests/compat.inc): with no mode, expecting
 * GASNETT_THREAD_SINGLE unless the compiler says it compiles for threads
 * (_REENTRANT, _THREAD_SAFE), and with -DGASNETT_LITE_MODE, expecting the
 * thread-safe tools.
 */
#include <gasnet_tools.h>
#include <stdio.h>

int main(void)
{
    int fails = 0;
#if defined(GASNETT_THREAD_SAFE) == defined(GASNETT_THREAD_SINGLE)
    fails++;   /* exactly one mode */
#endif
#if defined(EXPECT_LITE)
#if !defined(GASNETT_LITE_MODE) || !defined(GASNETT_THREAD_SAFE)
    fails++;
#endif
#elif defined(_REENTRANT) || defined(_THREAD_SAFE)
#ifndef GASNETT_THREAD_SAFE
    fails++;   /* compiled for threads: GASNet's default is thread-safe */
#endif
#else
#ifndef GASNETT_THREAD_SINGLE
    fails++;
#endif
#endif
    gasnett_atomic_t a = gasnett_atomic_init(40);
    gasnett_atomic_increment(&a, 0);
    gasnett_atomic_add(&a, 1, 0);
    if (gasnett_atomic_read(&a, 0) != 42) fails++;
    gasnett_tick_t t0 = gasnett_ticks_now();
    gasnett_nsleep(1000000);
    if (gasnett_ticks_to_ns(gasnett_ticks_now() - t0) < 1000000) fails++;
    gasnett_local_mb();
    printf("tools_modes (%s): %s\n", GASNETT_CONFIG_STRING, fails ? "FAILED" : "ok");
    return fails != 0;
}
