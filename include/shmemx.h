/* shmemx.h: libgex-shmem extensions to OpenSHMEM 1.5.
 *
 * Includes <shmem.h>; the extensions are named shmemx_*. */
#ifndef GEXSHMEM_SHMEMX_H
#define GEXSHMEM_SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Wall-clock time in seconds since an arbitrary fixed point in the past
 * (monotonic, local to the calling PE). */
double shmemx_wtime(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GEXSHMEM_SHMEMX_H */
