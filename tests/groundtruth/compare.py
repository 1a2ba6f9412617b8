"""compare.py: measure optrace's trace.json against what torch really did.

Usage: python3 compare.py [options] TRACE_JSON DATA_JSON

  TRACE_JSON      optrace's trace.json of the ops of calls.py, at DATA's release
  DATA_JSON       what record.py recorded at that release (data/VER.json)
  --source DIR    the PyTorch git checkout (default $OPTRACE_SOURCE, else
                  ${TILEGYM_SKILL_CACHE_DIR:-~/.cache/tilegym}/pytorch-source):
                  the release's own torchgen names the autograd nodes
  --ignore-main   count every yaml / backward step, whatever its "main" says
                  (a baseline: what the trace reaches at all)
  --json FILE     also write the per-op results and the totals as JSON

What is measured (tests/groundtruth/README.md says why):
  forward recall     of the aten ops the call dispatched (BOOKKEEPING aside),
                     the fraction on optrace's CPU main path: a "yaml" step
                     whose op's base name is that op and whose "main" has "cpu"
  forward precision  of the ops on that path that every default call runs
                     (the step's "sure" has "cpu": no condition on the
                     arguments above it; not under a backward step,
                     BOOKKEEPING aside), the fraction that ran
  conditional        (reported, no threshold) the ops on the path only for
                     some arguments (main but not sure: the step's "when"
                     says for which), the fraction that ran in this call
  backward           every autograd node the call makes (the output's grad_fn
                     and the nodes of its graph) is shown: a "backward" step in
                     tools/autograd/derivatives.yaml, main cpu, whose op (or
                     symbol) is the node's entry
  backward kernels   (reported, no threshold) the aten ops the backward of
                     those nodes dispatched, against the yaml steps under
                     backward steps on the CPU main path

Exit status: 0 every threshold met; 1 one missed; 2 usage or input error.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import derivatives  # noqa: E402

RECALL_MIN = 0.95
PRECISION_MIN = 0.90

# Aten ops that do no work of the op's own: they only allocate an output, or
# only make a view (new sizes, strides or offset over the same storage), or
# are identities for a dense real tensor. Every kernel calls some of them; a
# trace that lists each would bury the path. Composite views that decide
# something (reshape, which may copy; contiguous; flatten) are NOT here.
BOOKKEEPING = frozenset([
    # allocation
    "empty", "empty_strided", "empty_like", "new_empty", "new_empty_strided", "resize_",
    # view primitives: metadata only (and the in-place forms that set it)
    "as_strided", "view", "_reshape_alias", "_unsafe_view", "t", "transpose", "permute",
    "expand", "unsqueeze", "squeeze", "select", "slice",
    "as_strided_", "t_", "transpose_", "unsqueeze_", "squeeze_",
    # identities for dense real tensors
    "alias", "detach", "lift_fresh", "resolve_conj", "resolve_neg",
])


def default_source():
    if os.environ.get("OPTRACE_SOURCE"):
        return os.environ["OPTRACE_SOURCE"]
    cache = os.environ.get("TILEGYM_SKILL_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache/tilegym")
    return os.path.join(cache, "pytorch-source")


def own_name(op):
    """The aten name an op's spelling names (Tensor.view -> view, aten::addmm.out -> addmm)."""
    name = op.split("::")[-1]
    for prefix in ("torch.ops.aten.",):
        if name.startswith(prefix):
            name = name[len(prefix):]
    if op.startswith("aten::"):
        return name.split(".")[0]
    return name.split(".")[-1]


def base(overload):
    return overload.split(".", 1)[0]


def counted(ops, own):
    """The distinct aten op names worth counting: BOOKKEEPING aside, unless
    it is the op itself (Tensor.view is a view)."""
    return {o for o in ops if o not in BOOKKEEPING or o == own}


def trace_paths(op, ignore_main):
    """(forward path, its sure part, backward-kernel path, derivative entries
    shown) of a trace.json op: base names of yaml steps on the CPU main path
    outside / under backward steps (and of those every default call runs),
    and the entries of backward derivatives.yaml steps."""
    steps = op.get("steps") or []
    under_backward = []
    for s in steps:
        p = s.get("parent", -1)
        under_backward.append(p is not None and 0 <= p < len(under_backward)
                              and (steps[p].get("layer") == "backward" or under_backward[p]))
    fwd, sure, bwd, entries = set(), set(), set(), set()
    for i, s in enumerate(steps):
        if not ignore_main and "cpu" not in (s.get("main") or []):
            continue
        if s.get("layer") == "yaml" and s.get("op"):
            (bwd if under_backward[i] else fwd).add(base(s["op"]))
            # a structured_delegate (a yaml step beneath a yaml step: sub_
            # computed by sub.out's kernel) is no dispatch of its own, so it
            # claims nothing the profiler would record; a schema-2 step has
            # no "sure": what is main is claimed outright
            p = s.get("parent", -1)
            delegate = p is not None and 0 <= p < len(steps) and steps[p].get("layer") == "yaml"
            if not under_backward[i] and not delegate and \
                    (ignore_main or "cpu" in s.get("sure", s.get("main") or [])):
                sure.add(base(s["op"]))
        elif s.get("layer") == "backward" and s.get("file") == "tools/autograd/derivatives.yaml":
            for k in ("op", "symbol"):
                if s.get(k):
                    entries.add(s[k])
    return fwd, sure, bwd, entries


def measure(rec, top, nodes_map, ignore_main):
    """The result of one op: what ran, what the trace shows, the misses."""
    own = own_name(rec["input"])
    ran = counted([e["op"] for e in rec.get("forward", [])], own)
    fwd, sure, bwd_path, entries = trace_paths(top, ignore_main) if top else (set(), set(), set(), set())
    path = counted(fwd, own)
    claimed = counted(sure, own)
    cond = path - claimed
    res = {"input": rec["input"], "in_trace": top is not None,
           "ran": sorted(ran), "path": sorted(path), "sure": sorted(claimed),
           "not_on_path": sorted(ran - path), "did_not_run": sorted(claimed - ran),
           "conditional": sorted(cond), "conditional_ran": sorted(cond & ran)}
    grad = rec.get("grad") or {}
    res["grad_fn"] = grad.get("grad_fn")
    res["grad_error"] = grad.get("error")
    checked = []
    for n in grad.get("nodes", []):
        name = n["name"]
        m = nodes_map.get(name)
        checked.append({"node": name, "entry": m["entry"] if m else None,
                        "line": m["line"] if m else None,
                        "shown": bool(m) and m["entry"] in entries})
    res["nodes"] = checked
    made = {n["node"] for n in checked}
    bran = counted([e["op"] for e in grad.get("backward", []) if e.get("node") in made], own)
    res["backward_ran"] = sorted(bran)
    res["backward_not_on_path"] = sorted(bran - counted(bwd_path, own))
    return res


def pct(a, b):
    return "%5.1f%%" % (100.0 * a / b) if b else "    -"


def short(names, limit=6):
    if not names:
        return "-"
    return " ".join(names[:limit]) + (" +%d" % (len(names) - limit) if len(names) > limit else "")


def main():
    ap = argparse.ArgumentParser(description="optrace's trace.json against the recorded ground truth")
    ap.add_argument("trace")
    ap.add_argument("data")
    ap.add_argument("--source", default=default_source())
    ap.add_argument("--ignore-main", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    try:
        with open(args.trace, encoding="utf-8") as f:
            trace = json.load(f)
        with open(args.data, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print("compare.py: %s" % e, file=sys.stderr)
        return 2
    release = data.get("release")
    traced = (trace.get("pytorch") or {}).get("version")
    if traced != release:
        print("compare.py: %s traces %s, %s records %s" % (args.trace, traced, args.data, release), file=sys.stderr)
        return 2
    try:
        nodes_map = derivatives.node_entries(args.source, "v" + release)
    except (RuntimeError, OSError) as e:
        print("compare.py: %s" % e, file=sys.stderr)
        return 2
    by_input = {op.get("input"): op for op in trace.get("ops", [])}

    results, absent = [], []
    for name, rec in data["ops"].items():
        if rec.get("status") != "ok":
            absent.append("%s (%s)" % (name, (rec.get("error") or rec.get("status")).split(":")[0]))
            continue
        results.append(measure(rec, by_input.get(name), nodes_map, args.ignore_main))

    ran = sum(len(r["ran"]) for r in results)
    hit = sum(len(r["ran"]) - len(r["not_on_path"]) for r in results)
    path = sum(len(r["sure"]) for r in results)
    real = sum(len(r["sure"]) - len(r["did_not_run"]) for r in results)
    conds = sum(len(r["conditional"]) for r in results)
    cond_ran = sum(len(r["conditional_ran"]) for r in results)
    nodes = sum(len(r["nodes"]) for r in results)
    shown = sum(1 for r in results for n in r["nodes"] if n["shown"])
    unmapped = sorted({n["node"] for r in results for n in r["nodes"] if not n["entry"]})
    bad_ops = [r for r in results if any(not n["shown"] for n in r["nodes"])]
    bran = sum(len(r["backward_ran"]) for r in results)
    bhit = bran - sum(len(r["backward_not_on_path"]) for r in results)
    missing = [r["input"] for r in results if not r["in_trace"]]

    mode = "every yaml/backward step (main ignored)" if args.ignore_main else "CPU main path"
    print("== optrace %s vs torch %s (%s), %s" % (args.trace, release, data.get("package") or data.get("torch_version"),
                                                  mode))
    print("%-34s %9s %9s %7s  %s" % ("op", "recall", "precision", "bwd", "ran, not on the path | always on the "
                                     "path, did not run | backward nodes not shown (entry)"))
    for r in results:
        nb = [n for n in r["nodes"] if not n["shown"]]
        if not (r["not_on_path"] or r["did_not_run"] or nb):
            continue
        rc = len(r["ran"]) - len(r["not_on_path"])
        pc = len(r["sure"]) - len(r["did_not_run"])
        bc = len(r["nodes"]) - len(nb)
        notes = [short(r["not_on_path"]), short(r["did_not_run"]),
                 short(["%s(%s)" % (n["node"], n["entry"] or "no entry") for n in nb], 4)]
        print("%-34s %9s %9s %7s  %s%s" % (r["input"], "%d/%d" % (rc, len(r["ran"])),
                                           "%d/%d" % (pc, len(r["sure"])), "%d/%d" % (bc, len(r["nodes"])),
                                           " | ".join(notes), "  [not in trace.json]" if not r["in_trace"] else ""))
    ok_recall = ran and hit / ran >= RECALL_MIN
    ok_precision = path and real / path >= PRECISION_MIN
    ok_backward = not bad_ops
    print("-- %d ops compared; %d absent at %s%s; %d not in trace.json%s" % (
        len(results), len(absent), release, (": " + ", ".join(absent)) if absent else "", len(missing),
        (": " + short(missing)) if missing else ""))
    print("forward recall     %5d/%-5d %s  (at least %d%%)  %s" % (hit, ran, pct(hit, ran), RECALL_MIN * 100,
                                                                  "ok" if ok_recall else "MISSED"))
    print("forward precision  %5d/%-5d %s  (at least %d%%)  %s" % (real, path, pct(real, path), PRECISION_MIN * 100,
                                                                  "ok" if ok_precision else "MISSED"))
    print("conditional        %5d/%-5d %s  of the steps on the path for some arguments ran (reported only)" % (
        cond_ran, conds, pct(cond_ran, conds)))
    print("backward nodes     %5d/%-5d %s  shown; ops with every node shown %d/%d (all)  %s" % (
        shown, nodes, pct(shown, nodes), len(results) - len(bad_ops), len(results),
        "ok" if ok_backward else "MISSED"))
    print("backward kernels   %5d/%-5d %s  on the path (reported only)" % (bhit, bran, pct(bhit, bran)))
    if unmapped:
        print("nodes without a derivatives.yaml entry: %s" % " ".join(unmapped))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"release": release, "mode": mode, "ops": results,
                       "totals": {"recall": [hit, ran], "precision": [real, path],
                                  "conditional": [cond_ran, conds], "backward_nodes": [shown, nodes],
                                  "backward_ops_ok": [len(results) - len(bad_ops), len(results)],
                                  "backward_kernels": [bhit, bran]}}, f, indent=1)
    return 0 if ok_recall and ok_precision and ok_backward else 1


if __name__ == "__main__":
    sys.exit(main())
