# fatal_check.sh: sourced by the diagnostic tests (test_rma_bounds.sh,
# mp_npam_misuse.sh, mp_vis_badargs.sh), each of which runs one program once
# per erroneous call and expects the job to end with status 1 and a message.
# The caller sets PROG (the program) before sourcing; this sets GEXRUN,
# `debug` (1 in debug builds: configure --enable-debug puts -DGEX_DEBUG=1 in
# GEX_OPT_CFLAGS, sources never include config.h) and a scratch folder, and
# defines check and finish.
set -u
GEXRUN=${GEXRUN:?set GEXRUN}
debug=0
grep -q '^GEX_OPT_CFLAGS = .*-DGEX_DEBUG' "$TOP_BUILDDIR/Makefile" 2>/dev/null && debug=1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$PROG").XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0

# check MODE REGEX: `PROG MODE` on 2 ranks ends with status 1 and stderr
# matching REGEX (grep -E)
check() {
    mode=$1 want=$2
    "$GEXRUN" -n 2 --timeout 60 "$PROG" "$mode" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    if [ $rc -eq 1 ] && grep -Eq "$want" "$TMP/err"; then
        passed=$((passed + 1))
        echo "ok   $mode: $(grep -E "$want" "$TMP/err" | head -n 1)"
    else
        failed=$((failed + 1))
        echo "FAIL $mode: exit status $rc (want 1), stderr should match: $want"
        sed 's/^/    err: /' "$TMP/err" | head -n 20
    fi
}

# finish: the summary line and the exit status
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
