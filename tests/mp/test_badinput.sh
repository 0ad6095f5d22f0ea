#!/bin/sh
# test_badinput.sh: the erroneous calls of tests/mp/mp_badinput end the job
# with status 1 and a message naming the call and the argument, in every
# build (issue #28; the audit table is in docs/reliability.md, "Bad input").
PROG=$TOP_BUILDDIR/tests/mp/mp_badinput
. "$(dirname "$0")/fatal_check.sh"
R='rank 2 is not below the team size 2'
check pre-ad-create  'gex_AD_Create: called before gex_Client_Init'
check pre-am         'bad AM argument: gex_AM_RequestShort0: tm is GEX_TM_INVALID'
check pre-rma        'gex_RMA_PutBlocking: bad argument: tm is GEX_TM_INVALID'
check am-rank        "bad AM argument: gex_AM_RequestShort1: $R"
check am-medium-big  'bad AM argument: gex_AM_RequestMedium0: nbytes [0-9]+ exceeds the Medium Request limit [0-9]+'
check am-unreg       'AM from rank 0 for handler 200, not registered on endpoint 0'
check am-unreg-reply 'AM from rank 1 for handler 200, not registered on endpoint 0'
check am-nargs       "AM for handler 131 \('h_short'\) violates its registration \(flags 0x[0-9a-f]+ nargs 1; got category 0 request with 0 args\)"
check am-category    "AM for handler 131 \('h_short'\) violates its registration \(flags 0x[0-9a-f]+ nargs 1; got category 1 request with 1 args\)"
check rma-null-src   'gex_RMA_PutBlocking: bad argument: src is NULL with nbytes 8'
check rma-null-dest  'gex_RMA_GetNBI: bad argument: dest is NULL with nbytes 8'
check ad-op-set      'gex_AD_OpNBI_U64: bad argument: opcode GEX_OP_FADD is not in the set'
check ad-rank        'gex_AD_OpNBI_U64: bad argument: tgt_rank 2 is not below the size 2'
check ad-dt          'gex_AD_OpNB_U32: bad argument: the domain.s data type is'
check coll-root      "gex_Coll_BroadcastNB: root 2 is not below the team size 2"
check coll-null      'gex_Coll_BroadcastNB: dst is NULL with nbytes 8'
if [ $debug -eq 1 ]; then
    check ad-outside 'gex_AD_OpNBI_U64: bad argument: tgt_addr \[0x[0-9a-f]+, \+8\) at rank 1 \(jobrank 1, endpoint 0\) is outside its bound segment'
    check ad-my-rank 'gex_AD_OpNBI_U64: bad argument: GEX_FLAG_AD_MY_RANK asserted, but the target is rank 1 and the caller is rank 0'
else
    echo "skip atomic target checks: not a debug build (configure --enable-debug)"
fi
finish
