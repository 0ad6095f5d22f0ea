#!/bin/sh
# test_exit_ofi.sh: tests/mp/test_exit.sh (every way a job ends: exit codes,
# a failing rank, a rank killed by a signal, the watchdog) on the ofi
# conduit with every rank its own node, so the job's ranks talk only
# through libfabric.  A killed rank must still end the job promptly.
GEX_CONDUIT=ofi
GASNET_SUPERNODE_MAXSIZE=1
export GEX_CONDUIT GASNET_SUPERNODE_MAXSIZE
exec bash "$(dirname "$0")/../mp/test_exit.sh" "$@"
