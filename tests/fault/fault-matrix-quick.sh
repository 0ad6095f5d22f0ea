#!/bin/sh
# make check's entry to the fault matrix: the quick subset on every conduit
# this build has (tests/fault.inc).
exec bash "$(dirname "$0")/fault-matrix.sh" --quick "$@"
