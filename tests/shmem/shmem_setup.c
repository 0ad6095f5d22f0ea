/* shmem_setup.c: library setup and query routines.
 * Checks shmem_init_thread + shmem_query_thread, shmem_my_pe/shmem_n_pes and
 * the deprecated _my_pe/_num_pes, shmem_info_get_version (equal to the header
 * macros, at least 1.4; 1.5 when the header says 1.5), shmem_info_get_name
 * (equals SHMEM_VENDOR_STRING), shmem_pe_accessible (every PE yes, out of
 * range no), shmem_addr_accessible (heap and static/global data yes, stack and
 * private malloc no), shmem_ptr (self gives the address itself; a remote
 * pointer, when given, really aliases the peer's object), and finalize. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

static int me = -1, npes = -1;

static void fail(const char *what, long long got, long long exp)
{
    printf("FAIL: %s (pe %d): got %lld expected %lld\n", what, me, got, exp);
    fflush(stdout);
    shmem_global_exit(1);
    exit(1);
}
#define CHECK(what, got, exp)                                          \
    do {                                                               \
        long long g_ = (long long)(got), e_ = (long long)(exp);        \
        if (g_ != e_) fail(what, g_, e_);                              \
    } while (0)

long global_var[16];             /* external linkage, symmetric */
static int static_var[16];       /* internal linkage, symmetric */

int main(void)
{
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_FUNNELED, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK("shmem_init_thread return", rc, 0);
    CHECK("thread level ordering SINGLE<FUNNELED", SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED, 1);
    CHECK("thread level ordering FUNNELED<SERIALIZED", SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED, 1);
    CHECK("thread level ordering SERIALIZED<MULTIPLE", SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE, 1);
    if (provided != SHMEM_THREAD_SINGLE && provided != SHMEM_THREAD_FUNNELED &&
        provided != SHMEM_THREAD_SERIALIZED && provided != SHMEM_THREAD_MULTIPLE)
        fail("provided thread level is a valid level", provided, SHMEM_THREAD_FUNNELED);
    int queried = -2;
    shmem_query_thread(&queried);
    CHECK("shmem_query_thread equals provided", queried, provided);

    /* PE identity */
    if (npes < 1) fail("shmem_n_pes >= 1", npes, 1);
    if (me < 0 || me >= npes) fail("shmem_my_pe in range", me, 0);
    CHECK("_my_pe", _my_pe(), me);
    CHECK("_num_pes", _num_pes(), npes);

    /* version */
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK("info_get_version major == SHMEM_MAJOR_VERSION", major, SHMEM_MAJOR_VERSION);
    CHECK("info_get_version minor == SHMEM_MINOR_VERSION", minor, SHMEM_MINOR_VERSION);
    CHECK("info_get_version >= 1.4", major > 1 || (major == 1 && minor >= 4), 1);
#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
    CHECK("info_get_version >= 1.5 with a 1.5 header", major > 1 || minor >= 5, 1);
#endif

    /* name */
    char name[SHMEM_MAX_NAME_LEN + 1];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    size_t len = strnlen(name, SHMEM_MAX_NAME_LEN);
    if (len >= SHMEM_MAX_NAME_LEN) fail("info_get_name NUL-terminated within SHMEM_MAX_NAME_LEN", (long long)len, SHMEM_MAX_NAME_LEN - 1);
    if (len == 0) fail("info_get_name non-empty", 0, 1);
    CHECK("info_get_name equals SHMEM_VENDOR_STRING", strcmp(name, SHMEM_VENDOR_STRING) == 0, 1);

    /* accessibility */
    for (int pe = 0; pe < npes; pe++)
        CHECK("shmem_pe_accessible(valid pe)", shmem_pe_accessible(pe), 1);
    CHECK("shmem_pe_accessible(n_pes)", shmem_pe_accessible(npes), 0);
    CHECK("shmem_pe_accessible(-1)", shmem_pe_accessible(-1), 0);

    long *heap = shmem_malloc(16 * sizeof(long));
    if (heap == NULL) fail("shmem_malloc(128) non-NULL", 0, 1);
    int stack_var[4] = {0, 1, 2, 3};
    char *priv = malloc(64);
    for (int pe = 0; pe < npes; pe++) {
        CHECK("addr_accessible(heap)", shmem_addr_accessible(heap, pe), 1);
        CHECK("addr_accessible(heap + 15)", shmem_addr_accessible(heap + 15, pe), 1);
        CHECK("addr_accessible(global)", shmem_addr_accessible(global_var, pe), 1);
        CHECK("addr_accessible(static)", shmem_addr_accessible(&static_var[3], pe), 1);
        CHECK("addr_accessible(stack)", shmem_addr_accessible(stack_var, pe), 0);
        CHECK("addr_accessible(private malloc)", shmem_addr_accessible(priv, pe), 0);
    }
    free(priv);

    /* shmem_ptr */
    CHECK("shmem_ptr(heap, me) == heap", shmem_ptr(heap, me) == (void *)heap, 1);
    CHECK("shmem_ptr(global, me) == global", shmem_ptr(global_var, me) == (void *)global_var, 1);
    for (int i = 0; i < 16; i++) heap[i] = -1;
    shmem_barrier_all();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *rp = shmem_ptr(heap, right);
    int direct = rp != NULL;
    if (direct) rp[me % 16] = 1000 + me;
    int *rs = shmem_ptr(static_var, right);
    int sdirect = rs != NULL;
    if (sdirect) rs[1] = 77 + me;
    shmem_barrier_all();
    /* tell the right neighbour whether we stored directly */
    shmem_int_p(&static_var[0], direct, right);
    shmem_int_p(&static_var[2], sdirect, right);
    shmem_barrier_all();
    if (static_var[0]) CHECK("store through shmem_ptr (heap) seen by peer", heap[left % 16], 1000 + left);
    if (static_var[2]) CHECK("store through shmem_ptr (static) seen by peer", static_var[1], 77 + left);
    shmem_barrier_all();

    shmem_free(heap);
    shmem_barrier_all();
    shmem_finalize();
#if !defined(OSHMEM_MAJOR_VERSION)
    /* a second init/finalize pair (GEX: allowed; the heap starts empty) */
    shmem_init();
    CHECK("my_pe after a second shmem_init", shmem_my_pe(), me);
    long *again = shmem_malloc(sizeof(long));
    if (!again) fail("shmem_malloc after a second shmem_init", 0, 1);
    *again = -1;
    shmem_barrier_all();
    shmem_long_p(again, me, right);
    shmem_barrier_all();
    CHECK("put after a second shmem_init", *again, left);
    shmem_free(again);
    shmem_finalize();
#endif
    return 0;
}
