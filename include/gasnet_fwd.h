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
#define GEX_FLAG_IMMEDIATE              ((gex_Flags_t)1u << 0)
#define GEX_FLAG_LC_COPY_YES            ((gex_Flags_t)1u << 1)
#define GEX_FLAG_LC_COPY_NO             ((gex_Flags_t)1u << 2)
#define GEX_FLAG_SELF_SEG_UNKNOWN       ((gex_Flags_t)1u << 3)
#define GEX_FLAG_SELF_SEG_SOME          ((gex_Flags_t)1u << 4)
#define GEX_FLAG_SELF_SEG_BOUND         ((gex_Flags_t)1u << 5)
#define GEX_FLAG_SELF_SEG_OFFSET        ((gex_Flags_t)1u << 6)
#define GEX_FLAG_PEER_SEG_UNKNOWN       ((gex_Flags_t)1u << 7)
#define GEX_FLAG_PEER_SEG_SOME          ((gex_Flags_t)1u << 8)
#define GEX_FLAG_PEER_SEG_BOUND         ((gex_Flags_t)1u << 9)
#define GEX_FLAG_PEER_SEG_OFFSET        ((gex_Flags_t)1u << 10)
#define GEX_FLAG_PEER_NEVER_SELF        ((gex_Flags_t)1u << 11)
#define GEX_FLAG_PEER_NEVER_NBRHD       ((gex_Flags_t)1u << 12)
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT ((gex_Flags_t)1u << 13)
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC ((gex_Flags_t)1u << 14)
#define GEX_FLAG_RANK_IS_JOBRANK        ((gex_Flags_t)1u << 15)
/* remote atomics */
#define GEX_FLAG_AD_MY_RANK             ((gex_Flags_t)1u << 16)
#define GEX_FLAG_AD_MY_NBRHD            ((gex_Flags_t)1u << 17)
#define GEX_FLAG_AD_ACQ                 ((gex_Flags_t)1u << 18)
#define GEX_FLAG_AD_REL                 ((gex_Flags_t)1u << 19)
#define GEX_FLAG_AD_FAVOR_MY_RANK       ((gex_Flags_t)1u << 20)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD      ((gex_Flags_t)1u << 21)
#define GEX_FLAG_AD_FAVOR_REMOTE        ((gex_Flags_t)1u << 22)
/* VIS */
#define GEX_FLAG_ENABLE_LEAF_LC         ((gex_Flags_t)1u << 23)
/* team construction and destruction */
#define GEX_FLAG_TM_GLOBAL_SCRATCH      ((gex_Flags_t)1u << 24)
#define GEX_FLAG_TM_LOCAL_SCRATCH       ((gex_Flags_t)1u << 25)
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH   ((gex_Flags_t)1u << 26)
#define GEX_FLAG_TM_NO_SCRATCH          ((gex_Flags_t)1u << 27)
#define GEX_FLAG_SCRATCH_SEG_OFFSET     ((gex_Flags_t)1u << 28)
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN    ((gex_Flags_t)1u << 29)
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED ((gex_Flags_t)1u << 30)
#define GEX_FLAG_GLOBALLY_QUIESCED      ((gex_Flags_t)1u << 31)
/* gex_Client_Init */
#define GEX_FLAG_USES_GASNET1           ((gex_Flags_t)1u << 0)
#define GEX_FLAG_DEFER_THREADS          ((gex_Flags_t)1u << 1)
/* gex_EP_Create (seed 003 section 3.3) */
#define GEX_FLAG_HINT_ACCEL_AD          ((gex_Flags_t)1u << 4)
#define GEX_FLAG_HINT_ACCEL_COLL        ((gex_Flags_t)1u << 5)
#define GEX_FLAG_HINT_ACCEL_ALL         (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)
/* gex_AM_Entry_t.gex_flags: category and request/reply */
#define GEX_FLAG_AM_SHORT               ((gex_Flags_t)1u << 0)
#define GEX_FLAG_AM_MEDIUM              ((gex_Flags_t)1u << 1)
#define GEX_FLAG_AM_LONG                ((gex_Flags_t)1u << 2)
#define GEX_FLAG_AM_MEDLONG             (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST             ((gex_Flags_t)1u << 3)
#define GEX_FLAG_AM_REPLY               ((gex_Flags_t)1u << 4)
#define GEX_FLAG_AM_REQREP              (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)

/* ---- Endpoint capabilities (seed 003 section 3.2) ---- */
#define GEX_EP_CAPABILITY_RMA   ((gex_EP_Capabilities_t)1u << 0)
#define GEX_EP_CAPABILITY_AM    ((gex_EP_Capabilities_t)1u << 1)
#define GEX_EP_CAPABILITY_VIS   ((gex_EP_Capabilities_t)1u << 2)
#define GEX_EP_CAPABILITY_COLL  ((gex_EP_Capabilities_t)1u << 3)
#define GEX_EP_CAPABILITY_AD    ((gex_EP_Capabilities_t)1u << 4)
#define GEX_EP_CAPABILITY_ALL   ((gex_EP_Capabilities_t)0x1Fu)

/* ---- Data types (spec: "Data types") ---- */
#define GEX_DT_I32   ((gex_DT_t)1u << 0)
#define GEX_DT_U32   ((gex_DT_t)1u << 1)
#define GEX_DT_I64   ((gex_DT_t)1u << 2)
#define GEX_DT_U64   ((gex_DT_t)1u << 3)
#define GEX_DT_FLT   ((gex_DT_t)1u << 4)
#define GEX_DT_DBL   ((gex_DT_t)1u << 5)
#define GEX_DT_USER  ((gex_DT_t)1u << 6)

/* ---- Operations (spec: "Operations"); fetching variants are op<<1 ---- */
#define GEX_OP_AND    ((gex_OP_t)1u << 0)
#define GEX_OP_FAND   ((gex_OP_t)1u << 1)
#define GEX_OP_OR     ((gex_OP_t)1u << 2)
#define GEX_OP_FOR    ((gex_OP_t)1u << 3)
#define GEX_OP_XOR    ((gex_OP_t)1u << 4)
#define GEX_OP_FXOR   ((gex_OP_t)1u << 5)
#define GEX_OP_ADD    ((gex_OP_t)1u << 6)
#define GEX_OP_FADD   ((gex_OP_t)1u << 7)
#define GEX_OP_SUB    ((gex_OP_t)1u << 8)
#define GEX_OP_FSUB   ((gex_OP_t)1u << 9)
#define GEX_OP_MULT   ((gex_OP_t)1u << 10)
#define GEX_OP_FMULT  ((gex_OP_t)1u << 11)
#define GEX_OP_MIN    ((gex_OP_t)1u << 12)
#define GEX_OP_FMIN   ((gex_OP_t)1u << 13)
#define GEX_OP_MAX    ((gex_OP_t)1u << 14)
#define GEX_OP_FMAX   ((gex_OP_t)1u << 15)
#define GEX_OP_INC    ((gex_OP_t)1u << 16)
#define GEX_OP_FINC   ((gex_OP_t)1u << 17)
#define GEX_OP_DEC    ((gex_OP_t)1u << 18)
#define GEX_OP_FDEC   ((gex_OP_t)1u << 19)
#define GEX_OP_SET    ((gex_OP_t)1u << 20)
#define GEX_OP_SWAP   ((gex_OP_t)1u << 21)
#define GEX_OP_CAS    ((gex_OP_t)1u << 22)
#define GEX_OP_FCAS   ((gex_OP_t)1u << 23)
#define GEX_OP_GET    ((gex_OP_t)1u << 24)
#define GEX_OP_USER   ((gex_OP_t)1u << 25)
#define GEX_OP_USER_NC ((gex_OP_t)1u << 26)
#define GEX_OP_CSWAP  GEX_OP_FCAS /* deprecated alias (spec) */
/* Every non-fetching op sits on an even bit and its fetching twin on the
 * next one (SET/SWAP and CAS/FCAS included), so conversion is one shift. */
#define GEX_OP_TO_FETCHING(op)    ((gex_OP_t)((op) << 1))
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)((op) >> 1))

/* ---- Event categories for NBI (spec: gex_NBI_Test) ---- */
#define GEX_EC_GET   ((gex_EC_t)1u << 0)
#define GEX_EC_PUT   ((gex_EC_t)1u << 1)
#define GEX_EC_AM    ((gex_EC_t)1u << 2)
#define GEX_EC_LC    ((gex_EC_t)1u << 3)
#define GEX_EC_RMW   ((gex_EC_t)1u << 4)
#define GEX_EC_ALL   ((gex_EC_t)0x1Fu)

/* ---- Token info query mask (spec: "AM Token Info") ---- */
#define GEX_TI_SRCRANK  ((gex_TI_t)1u << 0)
#define GEX_TI_EP       ((gex_TI_t)1u << 1)
#define GEX_TI_ENTRY    ((gex_TI_t)1u << 2)
#define GEX_TI_IS_REQ   ((gex_TI_t)1u << 3)
#define GEX_TI_IS_LONG  ((gex_TI_t)1u << 4)
#define GEX_TI_ALL      ((gex_TI_t)0x1Fu)

/* ---- Progress thread roles (spec v0.18) ---- */
#define GEX_THREAD_ROLE_RCV 1u
#define GEX_THREAD_ROLE_SND 2u

#ifdef __cplusplus
}
#endif
#endif /* GASNET_FWD_H */
