/*
 * ad_select.c: which implementation an atomic domain gets (spec: "Atomic
 * Domains": creation names one type and a set of operations "to permit
 * selection of the best possible implementation which can provide correct
 * results for the given set").  A pure function of its inputs, so that
 * tests/unit/test_atomics.c checks it with made-up conduits.
 *
 * The rule (atomics_internal.h describes the three implementations):
 *   1. GEX_FORCE_REFERENCE=atomics (or all): reference.
 *   2. The conduit performs the WHOLE declared set in the network (it
 *      offers amo, sets GEX_CONDUIT_CAP_AMO and amo_query accepts every
 *      (dt, op) pair) and the domain favours remote targets: conduit.
 *      Never a mix: one unsupported pair and the domain stays on CPU
 *      atomics for every op.
 *   3. Every member is in this process's neighbourhood: shared memory.
 *   4. Otherwise: reference.
 * "Favours remote targets" is GEX_FLAG_AD_FAVOR_REMOTE, or no FAVOR hint on
 * a team that is not entirely in our neighbourhood (spec: a high-quality
 * implementation favours RANK for a one-member team and NBRHD for a team
 * within one neighbourhood).  FAVOR_MY_RANK / FAVOR_MY_NBRHD keep a domain
 * on CPU atomics even where the conduit could do the set, because local
 * CPU atomics are what such targets are fastest with.
 *
 * Every member of the team reaches the same decision without communicating:
 * the inputs are the same everywhere (one conduit for the job, single-valued
 * dt/ops/flags, and "all members in my neighbourhood" is the same for all
 * members since neighbourhoods partition the job), and what could still
 * differ (a peer's segment mapped here or not) only chooses between two CPU
 * paths, which are coherent with each other.
 */
#include "atomics_internal.h"

int gexi_ad_conduit_covers(const struct gex_conduit_ops *ops, struct gex_conduit *c,
                           uint64_t cap_flags, gex_DT_t dt, gex_OP_t opset)
{
    if (!ops || !(cap_flags & GEX_CONDUIT_CAP_AMO)) return 0;
    if (!GEX_CONDUIT_HAS(ops, amo_query) || !GEX_CONDUIT_HAS(ops, amo)) return 0;
    for (gex_OP_t rest = opset; rest; rest &= rest - 1) {
        const gex_OP_t op = rest & (~rest + 1); /* lowest set bit */
        if (ops->amo_query(c, dt, op) != GEX_CONDUIT_OK) return 0;
    }
    return 1;
}

enum gexi_ad_impl gexi_ad_select(const struct gexi_ad_select_in *in)
{
    if (in->forced) return GEXI_AD_REFERENCE;
    const gex_Flags_t hint = in->flags & (GEX_FLAG_AD_FAVOR_MY_RANK |
                                          GEX_FLAG_AD_FAVOR_MY_NBRHD | GEX_FLAG_AD_FAVOR_REMOTE);
    const int favor_remote = hint ? hint == GEX_FLAG_AD_FAVOR_REMOTE : !in->all_local;
    if (favor_remote &&
        gexi_ad_conduit_covers(in->ops, in->conduit, in->cap_flags, in->dt, in->opset))
        return GEXI_AD_CONDUIT;
    return in->all_local ? GEXI_AD_SHM : GEXI_AD_REFERENCE;
}

const char *gexi_ad_impl_name(enum gexi_ad_impl impl)
{
    switch (impl) {
    case GEXI_AD_REFERENCE: return "reference";
    case GEXI_AD_SHM: return "shm";
    case GEXI_AD_CONDUIT: return "conduit";
    }
    return "?";
}

const char *gexi_ad_dt_name(gex_DT_t dt)
{
    switch (dt) {
    case GEX_DT_I32: return "GEX_DT_I32";
    case GEX_DT_U32: return "GEX_DT_U32";
    case GEX_DT_I64: return "GEX_DT_I64";
    case GEX_DT_U64: return "GEX_DT_U64";
    case GEX_DT_FLT: return "GEX_DT_FLT";
    case GEX_DT_DBL: return "GEX_DT_DBL";
    case GEX_DT_USER: return "GEX_DT_USER";
    default: return "(not a GEX_DT_* value)";
    }
}

const char *gexi_ad_op_name(gex_OP_t op)
{
    static const char *const names[] = {
        "AND", "FAND", "OR", "FOR", "XOR", "FXOR", "ADD", "FADD", "SUB", "FSUB", "MULT",
        "FMULT", "MIN", "FMIN", "MAX", "FMAX", "INC", "FINC", "DEC", "FDEC", "SET", "SWAP",
        "CAS", "FCAS", "GET", "USER", "USER_NC",
    };
    if (!gexi_ad_is_single_bit(op)) return op ? "(several opcodes)" : "(no opcode)";
    unsigned i = (unsigned)__builtin_ctz(op);
    return i < sizeof names / sizeof names[0] ? names[i] : "(not a GEX_OP_* value)";
}
