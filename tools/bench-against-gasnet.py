#!/usr/bin/env python3
"""bench-against-gasnet.py: GEX side by side with GASNet-EX, in one interleaved run.

Usage (normally through ./gex-dev bench --against-gasnet [TARBALL] [options]):

  bench-against-gasnet.py --self-test      the parsers on fixed input (make check)

  bench-against-gasnet.py --prefix GEX_PREFIX --srcdir GEX_SRC [TARBALL]
      [--conduits "smp ucx ofi"] [--ranks "2 4"] [--reps 3] [--full]
      [--gasnet-tests DIR] [--out DIR] [--cache DIR] [--timeout S]
      [--programs "rma_bench testsmall ..."]

What it does (docs/benchmarks.md, "Against GASNet-EX"):
  1. Builds GASNet-EX from TARBALL once (smp, ucx and ofi conduits, SEQ,
     the configure line of ../shared/anchors/README.md) in the cache folder;
     a later run reuses it.
  2. Compiles the same client sources against both, through each one's
     <conduit>-seq.mak: the project's benchmark programs (bench/rma,
     bench/atomics, bench/am, bench/vis, bench/coll: public API only; the
     GEX-only extensions they use are weak symbols) and, when the folder
     exists, GASNet-EX's own testsmall and testfaddperf.
  3. Runs them interleaved (GEX, then GASNet-EX, program by program) REPS
     times for every conduit and rank count, with the environment the
     anchors README gives for one host: ucx over tcp on lo, ofi on the
     sockets provider, and no shared-memory bypass for the network conduits
     (GASNET_SUPERNODE_MAXSIZE=1, GEX_PSHM=0).
  4. Prints one table of GEX/GASNet-EX ratios, as time per operation (a
     rate is inverted), so below 1.0 means GEX is faster on every row; the
     ratio is best against best of the REPS runs and the spread is
     [GEX best / GASNet worst, GEX worst / GASNet best].  Writes
     OUT/against-gasnet.json and, when gnuplot is installed, one PNG per
     benchmark family, conduit and rank count (ratio against message size).

Exit status: 0 when every program ran on both; 1 when some run failed or
timed out (the table says which); 2 for bad usage.  The ratios never set the
status: this machine's absolute figures swing 2-5x between runs, so a
threshold belongs to a reader of the JSON, not to one run.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

BENCHES = [  # (family, program, source relative to the GEX tree, quick args)
    ("rma", "rma_bench", "bench/rma/rma_bench.c", ["--quick"]),
    ("atomics", "atomics_bench", "bench/atomics/atomics_bench.c", ["--quick"]),
    ("am", "am_bench", "bench/am/am_bench.c", ["--quick"]),
    ("vis", "vis_bench", "bench/vis/vis_bench.c", ["--quick"]),
    ("coll", "coll_bench", "bench/coll/coll_bench.c", ["--quick"]),
]
GASNET_TESTS = [  # (family, program, args on smp, args on a network conduit)
    ("rma", "testsmall", ["1000000", "2048"], ["500", "1024"]),
    ("atomics", "testfaddperf", ["1000000"], ["1000"]),
]
NET_ENV = {
    "ucx": {"UCX_TLS": "tcp,self", "UCX_NET_DEVICES": "lo"},
    "ofi": {"FI_PROVIDER": "sockets", "FI_SOCKETS_IFACE": "lo"},
}
MPI_ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def log(msg):
    print("bench-against-gasnet: " + msg, file=sys.stderr, flush=True)


def run(cmd, cwd=None, env=None, timeout=None, out=None):
    """Runs cmd in a session of its own; returns (status, output).  Status -1:
    timed out, and then the whole session is killed (a launcher and its
    ranks, or mpirun and its daemons), not only the launcher."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        data, _ = p.communicate(timeout=timeout)
        status = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, 15)
            time.sleep(2)
            os.killpg(p.pid, 9)
        except ProcessLookupError:
            pass
        data, _ = p.communicate()
        status = -1
    text = (data or b"").decode(errors="replace")
    if out:
        open(out, "w").write(text)
    return status, text


# ---- 1. GASNet-EX, built once ----

def build_gasnet(tarball, cache, conduits):
    name = os.path.basename(tarball)
    for suffix in (".tar.gz", ".tgz"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    root = os.path.join(cache, name)
    stamp = os.path.join(root, "build", ".gex-against-gasnet-" + "-".join(sorted(conduits)))
    if os.path.exists(stamp):
        log("GASNet-EX reused from " + root)
        return os.path.join(root, "build")
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    log("building GASNet-EX from %s in %s (once; about 5 minutes on 2 cores)" % (tarball, root))
    st, text = run(["tar", "-xzf", os.path.abspath(tarball), "-C", root, "--strip-components=1"])
    if st:
        sys.exit("bench-against-gasnet: cannot unpack %s:\n%s" % (tarball, text))
    build = os.path.join(root, "build")
    os.makedirs(build)
    conf = ["../configure", "--disable-udp", "--disable-ibv",
            "--enable-smp", "--enable-ucx", "--enable-ofi",
            "--with-ofi-spawner=mpi", "--with-ucx-spawner=mpi"]
    st, text = run(conf, cwd=build, out=os.path.join(build, "gex-configure.log"))
    if st:
        sys.exit("bench-against-gasnet: GASNet-EX's configure failed (%s/gex-configure.log)" % build)
    jobs = str(os.cpu_count() or 2)
    for c in conduits:
        st, text = run(["make", "-j" + jobs, "-C", c + "-conduit", "seq"], cwd=build,
                       out=os.path.join(build, "gex-make-%s.log" % c))
        if st:
            sys.exit("bench-against-gasnet: GASNet-EX's %s conduit did not build (%s/gex-make-%s.log)"
                     % (c, build, c))
    open(stamp, "w").write("built %s\n" % time.strftime("%Y-%m-%d %H:%M:%S"))
    return build


# ---- 2. one client source against both ----

MAKEFILE = """include $(MAK)
$(OUT): $(SRC)
\t$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) $(EXTRA_INC) -c -o $(OUT).o $(SRC)
\t$(GASNET_LD) $(GASNET_LDFLAGS) -o $(OUT) $(OUT).o $(GASNET_LIBS) -lm
"""


def compile_prog(outdir, impl, conduit, mak, src, prog, extra_inc):
    d = os.path.join(outdir, "bin", "%s-%s" % (impl, conduit))
    os.makedirs(d, exist_ok=True)
    mk = os.path.join(outdir, "bin", "Makefile")
    if not os.path.exists(mk):
        open(mk, "w").write(MAKEFILE)
    out = os.path.join(d, prog)
    st, text = run(["make", "-s", "-f", mk, "MAK=" + mak, "SRC=" + src, "OUT=" + out,
                    "EXTRA_INC=" + " ".join("-I" + i for i in extra_inc)],
                   out=out + ".build.log")
    return out if st == 0 and os.path.exists(out) else None


# ---- 3. runs ----

def launch(impl, conduit, ranks, prog, args, gex_prefix, gasnet_build):
    env = dict(os.environ)
    env.update(MPI_ROOT_ENV)
    if conduit != "smp":
        env.update(NET_ENV[conduit])
    if impl == "gex":
        env["GEX_CONDUIT"] = conduit
        if conduit != "smp":
            env["GEX_PSHM"] = "0"
        return [os.path.join(gex_prefix, "bin", "gexrun"), "-n", str(ranks), prog] + args, env
    if conduit == "smp":
        env["GASNET_PSHM_NODES"] = str(ranks)
        return [prog] + args, env
    env["GASNET_SUPERNODE_MAXSIZE"] = "1"
    runner = os.path.join(gasnet_build, "%s-conduit" % conduit, "contrib", "gasnetrun_" + conduit)
    return [runner, "-n", str(ranks), "-spawner=mpi", prog] + args, env


# ---- 4. results: every row as a time per operation, lower is better ----

VALUE_KEYS = re.compile(r"^(median|min|max)_|^samples|^iterations$|^reps$|^flood|^verified")


def rows_from_json(path):
    """{key: time} from a project benchmark's JSON (median of its own reps)."""
    try:
        doc = json.load(open(path))
    except (OSError, ValueError):
        return {}
    rows = {}
    for t in doc.get("tests", []):
        med = [k for k in t if k.startswith("median_")]
        if not med:
            continue
        k = med[0]
        v = t[k]
        if not isinstance(v, (int, float)) or v <= 0:
            continue
        unit = k[len("median_"):]
        ident = [str(t.get("name"))]
        for f in ("type", "kind", "size", "elem", "dims", "active_ranks"):
            if f in t:
                ident.append("%s=%s" % (f, t[f]))
        time_per_op = v if unit == "us" else 1.0 / v   # a rate: invert
        rows[" ".join(ident)] = (time_per_op, t.get("size", t.get("elem")))
    return rows


def rows_from_gasnet_test(text):
    """{key: time} from a GASNet-EX test's output (testsmall, testfaddperf).
    Several ranks print the same row (testfaddperf -S): the best counts."""
    rows = {}
    for line in text.splitlines():
        sz = re.search(r"(\d+) byte", line)
        size = int(sz.group(1)) if sz else None
        pre = "%dB " % size if sz else ""
        m = re.search(r"latency\s+(\d+) us total,\s+[\d.]+ us ave\. \((.*)\)", line)
        it = re.search(r"(\d+) iters", line)
        if m and it and int(it.group(1)) > 0:
            key, t = pre + m.group(2), float(m.group(1)) / int(it.group(1))
        else:
            m = re.search(r"throughput\s+([\d.]+) \S+/sec.*\((.*)\)", line)
            if not m or float(m.group(1)) <= 0:
                continue
            key, t = pre + m.group(2), 1.0 / float(m.group(1))
        if key not in rows or t < rows[key][0]:
            rows[key] = (t, size)
    return rows


def ratio_row(a, b):
    """GEX's and GASNet-EX's times per operation over the runs -> ratio,
    low and high end of the spread."""
    return min(a) / min(b), min(a) / max(b), max(a) / min(b)


def self_test():
    """What make check runs (tests/test_bench_against_gasnet.sh): the two
    parsers and the ratio on fixed input, no GASNet-EX needed."""
    text = ("A:  0 -          8 byte :  1000 iters, latency       5000 us total,     5.000 us ave."
            " (PutBlocking latency)\n"
            "B:  0 -          8 byte :  1000 iters, throughput  2000.000000 KB/sec"
            " (PutNBI+NOW throughput)\n"
            "H:  0 :     400 iters, throughput                   4.000 ops/sec (U64 FADD throughput)\n"
            "H:  1 :     400 iters, throughput                   8.000 ops/sec (U64 FADD throughput)\n")
    r = rows_from_gasnet_test(text)
    assert r["8B PutBlocking latency"] == (5.0, 8), r
    assert abs(r["8B PutNBI+NOW throughput"][0] - 1 / 2000.0) < 1e-12, r
    assert r["U64 FADD throughput"] == (1 / 8.0, None), r   # the best rank counts
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"tests": [
            {"name": "put_lat", "kind": "latency", "size": 8, "median_us": 0.5, "min_us": 0.4},
            {"name": "fadd_tput", "type": "U64", "median_Mops_per_s": 4.0},
            {"name": "broken", "median_us": 0},
            {"name": "no_value", "size": 1}]}, f)
    r = rows_from_json(f.name)
    os.unlink(f.name)
    assert r == {"put_lat kind=latency size=8": (0.5, 8), "fadd_tput type=U64": (0.25, None)}, r
    assert ratio_row([2.0, 3.0], [4.0, 1.0]) == (2.0, 0.5, 3.0)
    print("bench-against-gasnet: self-test passed")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tarball", nargs="?")
    ap.add_argument("--prefix", required=True, help="installed GEX")
    ap.add_argument("--srcdir", required=True, help="the GEX source tree")
    ap.add_argument("--conduits", default="smp ucx ofi")
    ap.add_argument("--ranks", default="2 4")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--full", action="store_true", help="the benchmarks' full runs, not --quick")
    ap.add_argument("--gasnet-tests", default=None, help="GASNet-EX's test folder")
    ap.add_argument("--out", default=None)
    ap.add_argument("--cache", default=None)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per run")
    ap.add_argument("--programs", default=None,
                    help="only these programs (e.g. \"atomics_bench testfaddperf\")")
    o = ap.parse_args()
    src = os.path.abspath(o.srcdir)
    shared = os.path.join(os.path.dirname(src), "shared")
    tarball = o.tarball or os.path.join(shared, "anchors", "GASNet-EX-2025.8.0.tar.gz")
    if not os.path.isfile(tarball):
        log("no GASNet-EX tarball at %s (give one: ./gex-dev bench --against-gasnet TARBALL)"
            % tarball)
        return 2
    tests_dir = o.gasnet_tests or os.path.join(shared, "gasnet-tests")
    if not os.path.isfile(os.path.join(tests_dir, "test.h")):
        tests_dir = None
    conduits = o.conduits.split()
    ranks = [int(r) for r in o.ranks.split()]
    if not conduits or any(c not in ("smp", "ucx", "ofi") for c in conduits) or not ranks:
        log("--conduits takes smp, ucx, ofi; --ranks a list of rank counts")
        return 2
    out = os.path.abspath(o.out or os.path.join(src, "_build", "bench", "against-gasnet"))
    cache = os.path.abspath(o.cache or os.path.join(src, "_build", "gasnet-anchor"))
    os.makedirs(out, exist_ok=True)
    gasnet = build_gasnet(tarball, cache, conduits)

    progs = []   # (family, name, {(impl, conduit): path}, args_smp, args_net, kind)
    for fam, name, rel, quick in BENCHES:
        progs.append((fam, name, os.path.join(src, rel), [] if o.full else quick,
                      [] if o.full else quick, "json", [os.path.join(src, "bench")]))
    if tests_dir:
        for fam, name, a_smp, a_net in GASNET_TESTS:
            progs.append((fam, name, os.path.join(tests_dir, name + ".c"), a_smp, a_net, "text",
                          [tests_dir]))
    if o.programs:
        keep = set(o.programs.split())
        progs = [p for p in progs if p[1] in keep]
    built = {}
    failures = []
    for fam, name, path, a_smp, a_net, kind, inc in progs:
        for c in conduits:
            for impl in ("gex", "gasnet"):
                mak = (os.path.join(o.prefix, "include", "%s-conduit" % c, "%s-seq.mak" % c)
                       if impl == "gex" else
                       os.path.join(gasnet, "%s-conduit" % c, "%s-seq.mak" % c))
                b = compile_prog(out, impl, c, mak, path, name, inc)
                if b:
                    built[(name, impl, c)] = b
                else:
                    failures.append("%s: did not build against %s on %s (%s)"
                                    % (name, impl, c, os.path.join(out, "bin", "%s-%s" % (impl, c),
                                                                   name + ".build.log")))
    # runs, interleaved
    results = {}   # (conduit, ranks, family, prog, impl) -> list of {row: (time, size)}
    logdir = os.path.join(out, "runs")
    os.makedirs(logdir, exist_ok=True)
    for c in conduits:
        for n in ranks:
            for rep in range(o.reps):
                for fam, name, path, a_smp, a_net, kind, inc in progs:
                    for impl in ("gex", "gasnet"):
                        b = built.get((name, impl, c))
                        if not b or not built.get((name, "gasnet" if impl == "gex" else "gex", c)):
                            continue
                        args = list(a_smp if c == "smp" else a_net)
                        tag = "%s-%s-%d-%s-%d" % (name, c, n, impl, rep)
                        jpath = os.path.join(logdir, tag + ".json")
                        if kind == "json":
                            args += ["--json", jpath]
                        cmd, env = launch(impl, c, n, b, args, o.prefix, gasnet)
                        log("%s %s, %d ranks, run %d/%d: %s" % (impl, c, n, rep + 1, o.reps, name))
                        st, text = run(cmd, env=env, timeout=o.timeout,
                                       out=os.path.join(logdir, tag + ".log"))
                        if st != 0:
                            failures.append("%s on %s, %d ranks (%s): %s" % (
                                name, c, n, impl, "timed out after %d s" % o.timeout if st == -1
                                else "exit status %d" % st))
                            continue
                        rows = rows_from_json(jpath) if kind == "json" else \
                            rows_from_gasnet_test(text)
                        results.setdefault((c, n, fam, name, impl), []).append(rows)
    # the table
    table = []
    for (c, n, fam, name, impl), runs in sorted(results.items()):
        if impl != "gex":
            continue
        theirs = results.get((c, n, fam, name, "gasnet"), [])
        keys = set().union(*[set(r) for r in runs]) & set().union(*[set(r) for r in theirs]) \
            if runs and theirs else set()
        for k in sorted(keys):
            if k.split()[0].endswith("_ool"):
                continue   # GEX's out-of-line call: GASNet-EX has no such function
            a = [r[k][0] for r in runs if k in r]
            b = [r[k][0] for r in theirs if k in r]
            if not a or not b:
                continue
            size = next((r[k][1] for r in runs if k in r), None)
            ratio, low, high = ratio_row(a, b)
            table.append({"conduit": c, "ranks": n, "family": fam, "program": name, "row": k,
                          "size": size, "gex_best": min(a), "gasnet_best": min(b),
                          "ratio": ratio, "ratio_low": low, "ratio_high": high,
                          "gex_runs": a, "gasnet_runs": b})
    print("%-4s %2s %-8s %-13s %-48s %8s  %s" % ("cond", "n", "family", "program", "row",
                                                 "GEX/GN", "spread"))
    for t in table:
        flag = "" if t["ratio"] <= 1.0 else "  behind"
        print("%-4s %2d %-8s %-13s %-48s %8.3f  [%.3f, %.3f]%s" % (
            t["conduit"], t["ranks"], t["family"], t["program"], t["row"][:48], t["ratio"],
            t["ratio_low"], t["ratio_high"], flag))
    behind = sum(1 for t in table if t["ratio"] > 1.0)
    print("\n%d rows; GEX behind on %d (ratio > 1: time per operation, best of %d runs each)"
          % (len(table), behind, o.reps))
    for f in failures:
        print("FAILED: " + f)
    doc = {"tarball": os.path.abspath(tarball), "gex_prefix": os.path.abspath(o.prefix),
           "conduits": conduits, "ranks": ranks, "reps": o.reps, "quick": not o.full,
           "timestamp": time.strftime("%Y%m%dT%H%M%S"), "rows": table, "failures": failures}
    jout = os.path.join(out, "against-gasnet.json")
    json.dump(doc, open(jout, "w"), indent=1)
    print("JSON: " + jout)
    plot(table, out)
    return 1 if failures else 0


def plot(table, out):
    """One PNG per (family, conduit, ranks): ratio against size, a line per
    row name (rows without a size are left to the table)."""
    gp = shutil.which("gnuplot")
    if not gp:
        log("gnuplot not installed: no plots (apt-get install gnuplot-nox)")
        return
    groups = {}
    for t in table:
        if t["size"] is None:
            continue
        series = re.sub(r"\d+B |size=\d+ ?", "", t["row"]).strip() or t["row"]
        groups.setdefault((t["family"], t["conduit"], t["ranks"]), {}) \
            .setdefault(t["program"] + ": " + series, []).append((t["size"], t["ratio"]))
    for (fam, c, n), series in sorted(groups.items()):
        series = {k: sorted(v) for k, v in series.items() if len(v) > 1}
        if not series:
            continue
        base = os.path.join(out, "%s-%s-%d" % (fam, c, n))
        with open(base + ".dat", "w") as f:
            for k, pts in series.items():
                f.write("# %s\n" % k)
                for s, r in pts:
                    f.write("%d %.6f\n" % (max(s, 1), r))
                f.write("\n\n")
        names = list(series)
        plots = ", ".join("'%s.dat' index %d with linespoints title '%s'"
                          % (base, i, k.replace("'", "")[:60]) for i, k in enumerate(names))
        script = ("set terminal png noenhanced size 1100,700\nset output '%s.png'\n"
                  "set format x '%%g'\n"
                  "set title 'GEX / GASNet-EX, %s, %s, %d ranks (time per operation; below 1: GEX faster)'\n"
                  "set logscale x 2\nset xlabel 'bytes'\nset ylabel 'ratio'\n"
                  "set key outside right\nset arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2\n"
                  "plot %s\n" % (base, fam, c, n, plots))
        p = subprocess.run([gp], input=script.encode(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        if p.returncode:
            log("gnuplot failed for %s: %s" % (base, p.stdout.decode(errors="replace")[:200]))
        else:
            print("plot: %s.png" % base)


if __name__ == "__main__":
    sys.exit(main())
