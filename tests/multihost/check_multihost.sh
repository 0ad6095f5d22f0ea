#!/bin/sh
# make check's multi-host pass: tests/multihost/test_multihost.sh --quick
# (each network conduit under one launcher: mpirun on ofi, srun on ucx; the
# full matrix is ./gex-dev multihost, a stage of ./gex-dev check).  Skips
# (77) unless run as root on a kernel that allows namespaces.
exec "$(dirname "$0")/test_multihost.sh" --quick "$@"
