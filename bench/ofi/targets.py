#!/usr/bin/env python3
"""targets.py: the issue-8 targets of the ofi conduit's specializations,
read from the JSON of `make bench-ofi` (never from a live run):

  rma      REF.json[,REF2.json...] NATIVE.json[,NATIVE2.json...]
           native put/get beats the AM reference path at every flood size
           from 8 KiB up (put_bulk, put_nonbulk, put_nbi, get_nb, get_nbi,
           MB/s), and the blocking 8-byte latencies for information
  atomics  REF.json[,...] NATIVE.json[,...]
           network-atomics U64 FADD latency beats the reference by at least
           1.5x (us)

Each side may name several runs (comma-separated; `make bench-ofi` runs the
two paths alternately BENCH_OFI_RUNS times so that a load that drifts hits
both alike).  A value is the median over the runs of each run's own median
(of R repetitions); the spread column shows the lowest and highest run
median, so a verdict the runs disagree on is visible as such.

Prints one line per comparison and a verdict; exits 1 when a target is
missed and --strict was given (the numbers are noisy on a loaded machine,
so `make bench-ofi` only reports)."""
import json
import statistics
import sys


def load(paths):
    runs = []
    for p in paths.split(","):
        if p:
            with open(p) as f:
                runs.append(json.load(f)["tests"])
    return runs


def collect(runs, keyf, valf):
    """{key: [value of each run that has it]}"""
    out = {}
    for tests in runs:
        for t in tests:
            k = keyf(t)
            if k is not None:
                out.setdefault(k, []).append(valf(t))
    return out


def fmt_spread(vals):
    return "%.1f..%.1f" % (min(vals), max(vals)) if len(vals) > 1 else "-"


def rma(ref, nat):
    rr, nr = load(ref), load(nat)
    print("runs: reference %d, native %d (value = median of run medians)" % (len(rr), len(nr)))
    bw = lambda t: (t["name"], t["size"]) if t["kind"] == "bandwidth" else None
    r = collect(rr, bw, lambda t: t["median_MB_per_s"])
    n = collect(nr, bw, lambda t: t["median_MB_per_s"])
    ok = True
    rows = 0
    print("%-12s %9s  %12s %17s  %12s %17s  %6s" % ("test", "bytes", "ref MB/s", "ref runs",
                                                    "native MB/s", "native runs", "x"))
    for key in sorted(r, key=lambda k: (k[0], k[1])):
        name, size = key
        if size < 8192 or name == "memcpy" or key not in n:
            continue
        a, b = statistics.median(r[key]), statistics.median(n[key])
        good = b > a
        ok &= good
        rows += 1
        print("%-12s %9d  %12.1f %17s  %12.1f %17s  %6.2f  %s"
              % (name, size, a, fmt_spread(r[key]), b, fmt_spread(n[key]),
                 b / a if a else float("inf"), "ok" if good else "MISSED"))
    lat = lambda t: (t["name"], t["size"]) if t["kind"] == "latency" and t["size"] == 8 else None
    rl = collect(rr, lat, lambda t: t["median_us"])
    nl = collect(nr, lat, lambda t: t["median_us"])
    for key in sorted(rl):
        if key in nl:
            a, b = statistics.median(rl[key]), statistics.median(nl[key])
            print("%-12s %9d  reference %.2f us (%s)  native %.2f us (%s)  x%.2f"
                  % (key[0], key[1], a, fmt_spread(rl[key]), b, fmt_spread(nl[key]),
                     a / b if b else float("inf")))
    if not rows:
        print("no flood sizes >= 8 KiB in the JSON (run without --quick/--smoke)")
    print("TARGET native put/get beats reference from 8 KiB up: %s"
          % ("met" if ok and rows else "NOT met"))
    return ok and rows > 0


def atomics(ref, nat):
    key = lambda t: "fadd" if t["name"] == "fadd_lat" and t.get("type") == "U64" else None
    a = collect(load(ref), key, lambda t: t["median_us"]).get("fadd")
    b = collect(load(nat), key, lambda t: t["median_us"]).get("fadd")
    if not a or not b:
        print("TARGET FADD latency: no U64 fadd_lat in the JSON")
        return False
    ma, mb = statistics.median(a), statistics.median(b)
    good = mb * 1.5 <= ma
    print("fadd_lat U64  reference %.2f us (runs %s)  network %.2f us (runs %s)  speed-up x%.2f"
          % (ma, fmt_spread(a), mb, fmt_spread(b), ma / mb))
    print("TARGET network-atomics FADD latency >= 1.5x better than reference: %s"
          % ("met" if good else "NOT met"))
    return good


def main(argv):
    strict = "--strict" in argv
    argv = [a for a in argv if a != "--strict"]
    if len(argv) != 4 or argv[1] not in ("rma", "atomics"):
        sys.stderr.write(__doc__)
        return 2
    ok = (rma if argv[1] == "rma" else atomics)(argv[2], argv[3])
    return 1 if strict and not ok else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
