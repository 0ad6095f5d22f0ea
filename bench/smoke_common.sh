# smoke_common.sh: the steps every benchmark smoke test (bench/smoke.sh,
# bench/*/smoke.sh) shares, sourced by them: set-up of a scratch folder, a
# run of a benchmark under gexrun with a time limit, and the JSON checks
# that do not depend on the benchmark.  Each smoke.sh keeps only what it
# asserts about its own benchmark.  Environment from the build: GEXRUN,
# TOP_BUILDDIR (as for tests/mp); outside `make check` they default to the
# current folder.  Speed is never checked.

# smoke_init TAG: sets gexrun, top, tmp (a scratch folder removed at exit,
# named after TAG) and status=0 (set to 1 by any failure below).
smoke_init() {
    set -u
    gexrun=${GEXRUN:-./gexrun}
    top=${TOP_BUILDDIR:-.}
    _smoke_tag=$1
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/gex-$1-smoke.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT
    status=0
}

# smoke_fail MESSAGE: reports a failure and sets status=1.
smoke_fail() {
    echo "FAIL: $*"
    status=1
}

# smoke_run NAME FORCE_REFERENCE LIMIT RANKS PROGRAM ARGS...: prints
# "== NAME" and runs PROGRAM on RANKS ranks (GEX_FORCE_REFERENCE set when
# not empty; time limit GEX_TEST_TIMEOUT, default LIMIT seconds), its
# output in $tmp/out.  A failed run is shown and fails the test: returns 1.
smoke_run() {
    _smoke_name=$1 _smoke_fr=$2 _smoke_limit=$3 _smoke_ranks=$4
    shift 4
    echo "== $_smoke_name"
    if ! env ${_smoke_fr:+GEX_FORCE_REFERENCE=$_smoke_fr} "$gexrun" -n "$_smoke_ranks" \
            --timeout "${GEX_TEST_TIMEOUT:-$_smoke_limit}" "$@" >"$tmp/out" 2>&1; then
        cat "$tmp/out"
        smoke_fail "$_smoke_name exited with an error"
        return 1
    fi
}

# smoke_each PROGRAM FORCE DEFAULT LIMIT CHECK: runs bench/PROGRAM --smoke
# on 1 and 2 ranks, on the default path and with GEX_FORCE_REFERENCE=FORCE,
# each writing $tmp/TAG-RANKS-PATH.json (TAG from smoke_init; PATH is FORCE,
# or DEFAULT for the default path); after each run that succeeded, calls
# the script's CHECK with name, json, n (ranks) and fr (FORCE or empty) set.
smoke_each() {
    _smoke_prog=$1 _smoke_force=$2 _smoke_default=$3 _smoke_each_limit=$4 _smoke_check=$5
    for n in 1 2; do
        for fr in "" "$_smoke_force"; do
            name="${_smoke_prog##*/} --smoke on $n rank(s)${fr:+ with GEX_FORCE_REFERENCE=$fr}"
            json=$tmp/$_smoke_tag-$n-${fr:-$_smoke_default}.json
            smoke_run "$name" "$fr" "$_smoke_each_limit" "$n" "$top/bench/$_smoke_prog" --smoke \
                --json "$json" && "$_smoke_check"
        done
    done
}

# smoke_json_valid NAME FILE [CONDITION]: where python3 is installed, FILE
# must parse as JSON (as d) and the Python CONDITION on d must hold.
smoke_json_valid() {
    command -v python3 >/dev/null 2>&1 || return 0
    python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert ${3:-True}" "$2" ||
        smoke_fail "$1: invalid JSON"
}

# smoke_closed FILE: 0 if the JSON's last line closes the top-level object
# (written to the end).
smoke_closed() {
    [ "$(tail -n 1 "$1")" = "}" ]
}

# smoke_path_is NAME FILE PATH: the JSON records "path": "PATH".
smoke_path_is() {
    grep -q "^  \"path\": \"$3\"" "$2" || smoke_fail "$1: path is not $3"
}

# smoke_end NAME: reports "NAME smoke: ok" when nothing failed; exits with
# the status.
smoke_end() {
    [ $status -eq 0 ] && echo "$1 smoke: ok"
    exit $status
}
