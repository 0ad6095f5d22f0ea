/*
 * gasnet_fwd.h: the small, dependency-free subset of the GASNet-EX API
 * (spec: "The gasnet_fwd.h header"): scalar types and GEX_* constants only,
 * safe to include from any client header.  gasnetex.h includes it.
 */
#ifndef GASNET_FWD_H
#define GASNET_FWD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Basic scalar types (spec: "Basic types") ---- */
typedef uint32_t gex_Rank_t;
#define GEX_RANK_INVALID ((gex_Rank_t)0xFFFFFFFFu)

typedef uint32_t gex_EP_Index_t;
typedef void *gex_Addr_t;
typedef uint32_t gex_Flags_t;
typedef uint32_t gex_DT_t;
typedef uint32_t gex_OP_t;
typedef uint32_t gex_EP_Capabilities_t;
typedef uint32_t gex_EC_t;
typedef uint32_t gex_TI_t;

/* Events: an opaque handle; 0 means "already complete". */
typedef struct gexi_event_opaque *gex_Event_t;
#define GEX_EVENT_INVALID ((gex_Event_t)0)
#define GEX_EVENT_NO_OP   ((gex_Event_t)(uintptr_t)1)
/* Predefined lc_opt values (never valid object addresses). */
#define GEX_EVENT_NOW     ((gex_Event_t *)(uintptr_t)1)
#define GEX_EVENT_DEFER   ((gex_Event_t *)(uintptr_t)2)
#define GEX_EVENT_GROUP   ((gex_Event_t *)(uintptr_t)3)

/*
 * Flags.  gex_Flags_t bits are disjoint among the flags any one call
 * accepts; unrelated families (client init, handler registration, EP
 * creation) reuse low bits.
 */
/* point-to-point communication */
#define GEX_FLAG_IMMEDIATE              (1U << 0)
#define GEX_FLAG_LC_COPY_YES            (1U << 1)
#define GEX_FLAG_LC_COPY_NO             (1U << 2)
#define GEX_FLAG_SELF_SEG_UNKNOWN       (1U << 3)
#define GEX_FLAG_SELF_SEG_SOME          (1U << 4)
#define GEX_FLAG_SELF_SEG_BOUND         (1U << 5)
#define GEX_FLAG_SELF_SEG_OFFSET        (1U << 6)
#define GEX_FLAG_PEER_SEG_UNKNOWN       (1U << 7)
#define GEX_FLAG_PEER_SEG_SOME          (1U << 8)
#define GEX_FLAG_PEER_SEG_BOUND         (1U << 9)
#define GEX_FLAG_PEER_SEG_OFFSET        (1U << 10)
#define GEX_FLAG_PEER_NEVER_SELF        (1U << 11)
#define GEX_FLAG_PEER_NEVER_NBRHD       (1U << 12)
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT (1U << 13)
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC (1U << 14)
#define GEX_FLAG_RANK_IS_JOBRANK        (1U << 15)
/* remote atomics */
#define GEX_FLAG_AD_MY_RANK             (1U << 16)
#define GEX_FLAG_AD_MY_NBRHD            (1U << 17)
#define GEX_FLAG_AD_ACQ                 (1U << 18)
#define GEX_FLAG_AD_REL                 (1U << 19)
#define GEX_FLAG_AD_FAVOR_MY_RANK       (1U << 20)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD      (1U << 21)
#define GEX_FLAG_AD_FAVOR_REMOTE        (1U << 22)
/* VIS */
#define GEX_FLAG_ENABLE_LEAF_LC         (1U << 23)
/* team construction and destruction */
#define GEX_FLAG_TM_GLOBAL_SCRATCH      (1U << 24)
#define GEX_FLAG_TM_LOCAL_SCRATCH       (1U << 25)
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH   (1U << 26)
#define GEX_FLAG_TM_NO_SCRATCH          (1U << 27)
#define GEX_FLAG_SCRATCH_SEG_OFFSET     (1U << 28)
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN    (1U << 29)
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED (1U << 30)
#define GEX_FLAG_GLOBALLY_QUIESCED      (1U << 31)
/* gex_Client_Init */
#define GEX_FLAG_USES_GASNET1           (1U << 0)
#define GEX_FLAG_DEFER_THREADS          (1U << 1)
/* gex_EP_Create (seed 003 section 3.3) */
#define GEX_FLAG_HINT_ACCEL_AD          (1U << 4)
#define GEX_FLAG_HINT_ACCEL_COLL        (1U << 5)
#define GEX_FLAG_HINT_ACCEL_ALL         (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)
/* gex_AM_Entry_t.gex_flags: category and request/reply */
#define GEX_FLAG_AM_SHORT               (1U << 0)
#define GEX_FLAG_AM_MEDIUM              (1U << 1)
#define GEX_FLAG_AM_LONG                (1U << 2)
#define GEX_FLAG_AM_MEDLONG             (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST             (1U << 3)
#define GEX_FLAG_AM_REPLY               (1U << 4)
#define GEX_FLAG_AM_REQREP              (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)

/* ---- Endpoint capabilities (seed 003 section 3.2) ---- */
#define GEX_EP_CAPABILITY_RMA   (1U << 0)
#define GEX_EP_CAPABILITY_AM    (1U << 1)
#define GEX_EP_CAPABILITY_VIS   (1U << 2)
#define GEX_EP_CAPABILITY_COLL  (1U << 3)
#define GEX_EP_CAPABILITY_AD    (1U << 4)
#define GEX_EP_CAPABILITY_ALL   0x1FU

/* ---- Data types (spec: "Data types") ---- */
#define GEX_DT_I32   (1U << 0)
#define GEX_DT_U32   (1U << 1)
#define GEX_DT_I64   (1U << 2)
#define GEX_DT_U64   (1U << 3)
#define GEX_DT_FLT   (1U << 4)
#define GEX_DT_DBL   (1U << 5)
#define GEX_DT_USER  (1U << 6)

/* ---- Operations (spec: "Operations"); fetching variants are op<<1 ---- */
#define GEX_OP_AND    (1U << 0)
#define GEX_OP_FAND   (1U << 1)
#define GEX_OP_OR     (1U << 2)
#define GEX_OP_FOR    (1U << 3)
#define GEX_OP_XOR    (1U << 4)
#define GEX_OP_FXOR   (1U << 5)
#define GEX_OP_ADD    (1U << 6)
#define GEX_OP_FADD   (1U << 7)
#define GEX_OP_SUB    (1U << 8)
#define GEX_OP_FSUB   (1U << 9)
#define GEX_OP_MULT   (1U << 10)
#define GEX_OP_FMULT  (1U << 11)
#define GEX_OP_MIN    (1U << 12)
#define GEX_OP_FMIN   (1U << 13)
#define GEX_OP_MAX    (1U << 14)
#define GEX_OP_FMAX   (1U << 15)
#define GEX_OP_INC    (1U << 16)
#define GEX_OP_FINC   (1U << 17)
#define GEX_OP_DEC    (1U << 18)
#define GEX_OP_FDEC   (1U << 19)
#define GEX_OP_SET    (1U << 20)
#define GEX_OP_SWAP   (1U << 21)
#define GEX_OP_CAS    (1U << 22)
#define GEX_OP_FCAS   (1U << 23)
#define GEX_OP_GET    (1U << 24)
#define GEX_OP_USER   (1U << 25)
#define GEX_OP_USER_NC (1U << 26)
#define GEX_OP_CSWAP  GEX_OP_FCAS /* deprecated alias (spec) */
/* Every non-fetching op sits on an even bit and its fetching twin on the
 * next one (SET/SWAP and CAS/FCAS included), so conversion is one shift. */
#define GEX_OP_TO_FETCHING(op)    ((gex_OP_t)((op) << 1))
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)((op) >> 1))

/* ---- Event categories for NBI (spec: gex_NBI_Test) ---- */
#define GEX_EC_GET   (1U << 0)
#define GEX_EC_PUT   (1U << 1)
#define GEX_EC_AM    (1U << 2)
#define GEX_EC_LC    (1U << 3)
#define GEX_EC_RMW   (1U << 4)
#define GEX_EC_ALL   0x1FU

/* ---- Token info query mask (spec: "AM Token Info") ---- */
#define GEX_TI_SRCRANK  (1U << 0)
#define GEX_TI_EP       (1U << 1)
#define GEX_TI_ENTRY    (1U << 2)
#define GEX_TI_IS_REQ   (1U << 3)
#define GEX_TI_IS_LONG  (1U << 4)
#define GEX_TI_ALL      0x1FU

/* ---- Progress thread roles (spec v0.18) ---- */
#define GEX_THREAD_ROLE_RCV 1u
#define GEX_THREAD_ROLE_SND 2u

#ifdef __cplusplus
}
#endif
#endif /* GASNET_FWD_H */
