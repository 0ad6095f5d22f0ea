#!/usr/bin/env python3
"""targets.py: the issue-8 targets of the ofi conduit's specializations,
read from the JSON of `make bench-ofi` (never from a live run):

  rma      REF.json NATIVE.json   native put/get beats the AM reference path
                                  at every flood size from 8 KiB up (put_bulk,
                                  put_nonbulk, put_nbi, get_nb, get_nbi,
                                  median MB/s)
  atomics  REF.json NATIVE.json   network-atomics U64 FADD latency beats the
                                  reference by at least 1.5x (median us)

Prints one line per comparison and a verdict; exits 1 when a target is
missed and --strict was given (the numbers are noisy on a loaded machine,
so `make bench-ofi` only reports)."""
import json
import sys


def tests(path):
    with open(path) as f:
        return json.load(f)["tests"]


def rma(ref, nat):
    r = {(t["name"], t["size"]): t for t in tests(ref) if t["kind"] == "bandwidth"}
    n = {(t["name"], t["size"]): t for t in tests(nat) if t["kind"] == "bandwidth"}
    ok = True
    rows = 0
    for key in sorted(r, key=lambda k: (k[0], k[1])):
        name, size = key
        if size < 8192 or name == "memcpy" or key not in n:
            continue
        a, b = r[key]["median_MB_per_s"], n[key]["median_MB_per_s"]
        good = b > a
        ok &= good
        rows += 1
        print("%-12s %9d B  reference %10.1f MB/s  native %10.1f MB/s  x%.2f  %s"
              % (name, size, a, b, b / a if a else float("inf"), "ok" if good else "MISSED"))
    if not rows:
        print("no flood sizes >= 8 KiB in the JSON (run without --quick/--smoke)")
    print("TARGET native put/get beats reference from 8 KiB up: %s"
          % ("met" if ok and rows else "NOT met"))
    return ok and rows > 0


def atomics(ref, nat):
    def fadd(path):
        for t in tests(path):
            if t["name"] == "fadd_lat" and t.get("type") == "U64":
                return t["median_us"]
        return None
    a, b = fadd(ref), fadd(nat)
    if a is None or b is None:
        print("TARGET FADD latency: no U64 fadd_lat in the JSON")
        return False
    good = b * 1.5 <= a
    print("fadd_lat U64  reference %.2f us  network %.2f us  speed-up x%.2f" % (a, b, a / b))
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
