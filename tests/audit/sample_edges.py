#!/usr/bin/env python3
"""sample_edges.py: a seeded random sample of a trace.json's edges, for a hand audit.

Usage: sample_edges.py TRACE_JSON [--seed N] [--count N] [--source DIR --tag TAG]

Draws `count` edges (default 200, seed 12) uniformly from every edge of every
traced op whose kind is a call in the source (call, op, bridge, stub,
register, launch, libcall, delegate, dispatch, meta), the same edges for the
same file and seed. Prints each with the op it is listed under, what calls
what and where, and whether it is on a main path; with --source and --tag
(a git checkout of PyTorch and the release's tag), also the source line of
the call site and of the callee, so the auditor reads them side by side.

An auditor marks each edge:
  ok        a real call (dispatch, registration, ...) of what it names, reached
            for the op it is listed under, its condition as the source says
  not-call  the site does not call what the edge names (wrong receiver type,
            wrong overload, a name that is not that function)
  unreached a real call, but never made for that op (another overload, a
            device that never calls it, dead code for the build)
  bad-cond  a real, reached call whose main / when is wrong
"""

import argparse
import json
import random
import subprocess
import sys

KINDS = {"call", "op", "bridge", "stub", "register", "launch", "libcall", "delegate", "dispatch", "meta"}


def source_line(source, tag, path, line, cache):
    if not source or not path or not line:
        return None
    if path not in cache:
        try:
            cache[path] = subprocess.run(["git", "-C", source, "show", "%s:%s" % (tag, path)],
                                         capture_output=True, check=True).stdout.decode("utf-8", "replace").split("\n")
        except subprocess.CalledProcessError:
            cache[path] = []
    lines = cache[path]
    return lines[line - 1].strip() if 0 < line <= len(lines) else None


def place(n):
    return "%s:%s" % (n["file"], n["line"]) if n.get("file") else "(not found)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--source")
    ap.add_argument("--tag")
    args = ap.parse_args()
    with open(args.trace, encoding="utf-8") as f:
        doc = json.load(f)
    pool = []
    for op in doc["ops"]:
        if op.get("status") != "traced":
            continue
        for i, e in enumerate(op.get("edges") or []):
            if e["kind"] in KINDS:
                pool.append((op, i))
    rng = random.Random(args.seed)
    picked = rng.sample(pool, min(args.count, len(pool)))
    cache = {}
    print("# %d of %d edges of %s (seed %d), PyTorch %s" % (len(picked), len(pool), args.trace, args.seed,
                                                          doc["pytorch"]["version"]))
    for k, (op, i) in enumerate(picked, 1):
        e = op["edges"][i]
        a, b = op["nodes"][e["from"]], op["nodes"][e["to"]]
        print()
        print("## %d. %s, edge %d: %s%s" % (k, op["input"], i, e["kind"], " (%s)" % e["key"] if e.get("key") else ""))
        print("from: %s %s at %s" % (a["kind"], a["symbol"], place(a)))
        print("to:   %s %s at %s%s" % (b["kind"], b["symbol"], place(b), " [%s]" % b["lib"] if b.get("lib") else ""))
        if e.get("site"):
            s = e["site"]
            print("site: %s:%s `%s`" % (s["file"], s["line"], s["symbol"]))
            text = source_line(args.source, args.tag, s["file"], s["line"], cache)
            if text is not None:
                print("      | %s" % text[:200])
        text = source_line(args.source, args.tag, b.get("file"), b.get("line"), cache)
        if text is not None:
            print("to    | %s" % text[:200])
        dev = e["devices"]
        print("main: %s  sure: %s  exact: %s" % (",".join(e["main"]) or "-", ",".join(e["sure"]) or "-", e["exact"]))
        for d in ("cpu", "cuda"):
            c = dev[d]
            print("%-5s %s%s%s" % (d + ":", c["reach"], " (%s)" % c["kind"] if c["kind"] != "always" else "",
                                   ": %s" % c["when"] if c.get("when") else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
