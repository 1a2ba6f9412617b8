"""record.py: run the default call of each op (calls.py) with the installed
torch and record what really happens: the aten ops it dispatches and the
autograd graph it builds. The format is in tests/groundtruth/README.md.

Usage: python3 record.py --release VER [--out FILE] [--only OP[,OP...]]

  --release VER   the release this torch is (Debian's builds report their own
                  __version__: 1.13.1 says "1.13.0a0"); refused when the
                  installed torch's version does not start with VER's X.Y
  --out FILE      where to write (default: stdout)
  --only OPS      record only these ops (comma-separated)

Exit status: 0 written; 1 written, but the call of some op raised (calls.py
is wrong for this release: the op is recorded with status "error"); 2 usage
error or no torch.
"""

import argparse
import json
import os
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import calls  # noqa: E402

FORMAT = 1


def package_version():
    """The Debian package the torch came from ("python3-torch 2.6.0+dfsg-7"), or None."""
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}", "python3-torch"],
                           capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


def flatten(value):
    """The tensors of a call's result, in order (tuples, lists, dicts, nested)."""
    import torch
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in flatten(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flatten(v)]
    return []


def aten_events(prof):
    """The aten:: events of a profile in call order (depth first, children by
    start time), each with the index of its nearest aten:: ancestor and the
    autograd node whose backward it runs in.

    The nesting is the profiler's own event tree (experimental_event_tree(),
    built from nanosecond enter/exit times in C++): FunctionEvent.cpu_parent
    is rebuilt from microsecond intervals and gets ties wrong."""
    out = []

    def walk(ev, parent, node):
        name = ev.name
        if name.startswith("autograd::engine::evaluate_function: "):
            node = name.split(": ", 1)[1].split("::")[-1]
        elif name.startswith("aten::"):
            rec = {"op": name[len("aten::"):], "parent": parent}
            if node is not None:
                rec["node"] = node
            parent = len(out)
            out.append(rec)
        for child in sorted(ev.children, key=lambda c: c.start_time_ns):
            walk(child, parent, node)

    for root in sorted(prof.profiler.kineto_results.experimental_event_tree(), key=lambda e: e.start_time_ns):
        walk(root, None, None)
    return out


def new_namespace(setup):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    torch.manual_seed(0)
    ns = {"torch": torch, "nn": nn, "F": F}
    exec(setup, ns)
    return ns


def inputs_of(ns):
    import torch
    out = []
    for name, v in ns.items():
        if isinstance(v, torch.Tensor):
            out.append({"name": name, "shape": list(v.shape), "dtype": str(v.dtype).replace("torch.", "")})
        elif isinstance(v, torch.nn.Module):
            out.append({"name": name, "module": repr(v)})
    return out


def graph_nodes(roots, before):
    """The autograd nodes reachable from roots (breadth first through
    next_functions), without AccumulateGrad and without the nodes in
    `before` (made before the call) or beyond them."""
    order, seen, queue = [], {}, []
    keep = []  # the node objects stay alive, so their ids stay unique
    for r in roots:
        if r is not None and id(r) not in seen and id(r) not in before:
            seen[id(r)] = len(order)
            order.append(r)
            queue.append(r)
    while queue:
        fn = queue.pop(0)
        for nxt, _ in fn.next_functions:
            if nxt is None or id(nxt) in before or id(nxt) in seen:
                continue
            keep.append(nxt)
            if type(nxt).__name__ == "AccumulateGrad":
                continue
            seen[id(nxt)] = len(order)
            order.append(nxt)
            queue.append(nxt)
    out = []
    for fn in order:
        nexts = [seen[id(n)] for n, _ in fn.next_functions if n is not None and id(n) in seen]
        out.append({"name": type(fn).__name__, "next": nexts})
    return out


def existing_nodes(ns):
    """The ids of every autograd node reachable from the tensors in ns, and
    the node objects themselves (kept alive for the ids to stay valid)."""
    import torch
    ids, keep = set(), []
    queue = [v.grad_fn for v in ns.values() if isinstance(v, torch.Tensor) and v.grad_fn is not None]
    while queue:
        fn = queue.pop()
        if fn is None or id(fn) in ids:
            continue
        ids.add(id(fn))
        keep.append(fn)
        queue.extend(n for n, _ in fn.next_functions)
    return ids, keep


def error_text(e):
    return "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")


def run_forward(c, profile, activities):
    ns = new_namespace(c.setup)
    eval(c.call, ns)  # warm-up: one-time initialisation is not the op's path
    ns = new_namespace(c.setup)
    with profile(activities=activities) as prof:
        eval(c.call, ns)
    return aten_events(prof), inputs_of(ns)


def run_grad(c, profile, activities):
    import torch
    ns = new_namespace(c.setup)
    for name, v in list(ns.items()):
        if (isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter) and v.is_leaf
                and (v.is_floating_point() or v.is_complex()) and name not in c.nograd):
            v.requires_grad_(True)
    if c.inplace:
        ns[c.inplace] = ns[c.inplace].clone()
    before, keep = existing_nodes(ns)
    out = {"grad_fn": None, "nodes": [], "backward": [], "error": None}
    try:
        result = eval(c.call, ns)
    except Exception as e:  # an out= variant raises; that is a fact to record
        out["error"] = error_text(e)
        return out
    tensors = [t for t in flatten(result) if t.grad_fn is not None]
    out["grad_fn"] = type(tensors[0].grad_fn).__name__ if tensors else None
    out["nodes"] = graph_nodes([t.grad_fn for t in tensors], before)
    del keep
    if not tensors:
        return out
    grads = [torch.ones_like(t) for t in tensors]
    try:
        with profile(activities=activities) as prof:
            torch.autograd.backward(tensors, grads)
    except Exception as e:
        out["backward_error"] = error_text(e)
        return out
    out["backward"] = aten_events(prof)
    return out


def version_tuple(v):
    parts = []
    for p in v.split("+")[0].split("."):
        digits = "".join(ch for ch in p if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
        if not p.isdigit():
            break
    return tuple(parts)


def record(c, release):
    """The record of one call at `release`. An op calls.py says is newer than
    the release must fail to run (status "absent"); one that runs there is an
    error in calls.py (SystemExit)."""
    from torch.profiler import ProfilerActivity, profile
    activities = [ProfilerActivity.CPU]
    rec = {"input": c.op, "family": c.family, "composite": c.composite, "setup": c.setup, "call": c.call,
           "status": "ok"}
    absent = c.since is not None and version_tuple(release) < version_tuple(c.since)
    try:
        forward, inputs = run_forward(c, profile, activities)
    except Exception as e:
        rec["status"] = "absent" if absent else "error"
        rec["error"] = ("added in %s: " % c.since if absent else "") + error_text(e)
        return rec
    if absent:
        raise SystemExit("record.py: %s ran at %s, but calls.py says it was added in %s" % (c.op, release, c.since))
    rec["inputs"] = inputs
    rec["forward"] = forward
    rec["grad"] = run_grad(c, profile, activities)
    return rec


# The lists written one element a line; everything else in a list on one line.
ONE_PER_LINE = frozenset(["inputs", "forward", "nodes", "backward"])


def dumps(value, indent=0, key=None):
    """JSON that diffs well: objects one member a line, the lists of
    ONE_PER_LINE one element a line."""
    pad = " " * indent
    if isinstance(value, dict) and value:
        return "{\n" + ",\n".join("%s %s: %s" % (pad, json.dumps(k), dumps(v, indent + 1, k))
                                   for k, v in value.items()) + "\n" + pad + "}"
    if isinstance(value, list) and value and key in ONE_PER_LINE:
        return "[\n" + ",\n".join(pad + " " + json.dumps(e) for e in value) + "\n" + pad + "]"
    return json.dumps(value)


def main():
    ap = argparse.ArgumentParser(description="record the real aten ops and autograd nodes of each call")
    ap.add_argument("--release", required=True)
    ap.add_argument("--out")
    ap.add_argument("--only")
    args = ap.parse_args()
    try:
        import torch
    except ImportError as e:
        print("record.py: no torch for %s: %s" % (sys.executable, e), file=sys.stderr)
        return 2
    if version_tuple(torch.__version__)[:2] != version_tuple(args.release)[:2]:
        print("record.py: the installed torch is %s, not %s" % (torch.__version__, args.release), file=sys.stderr)
        return 2
    # One intra-op thread: an op run by a parallel region's worker has no
    # parent in the event tree, and the order of events stays the same.
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    wanted = set(args.only.split(",")) if args.only else None
    todo = [c for c in calls.CALLS if wanted is None or c.op in wanted]
    if wanted and len(todo) != len(wanted):
        unknown = sorted(wanted - {c.op for c in todo})
        print("record.py: no call for: %s" % ", ".join(unknown), file=sys.stderr)
        return 2
    calls.by_op()
    data = {"format": FORMAT, "release": args.release, "torch_version": torch.__version__,
            "package": package_version(),
            "python": "%d.%d.%d" % sys.version_info[:3], "threads": 1,
            "cpu_capability": torch.backends.cpu.get_cpu_capability()
            if hasattr(torch.backends, "cpu") and hasattr(torch.backends.cpu, "get_cpu_capability") else None,
            "ops": {}}
    for c in todo:
        data["ops"][c.op] = record(c, args.release)
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(dumps(data) + "\n")
        os.replace(tmp, args.out)
    else:
        sys.stdout.write(dumps(data) + "\n")
    bad = [n for n, r in data["ops"].items() if r["status"] == "error"]
    print("record.py: %s: %d ops, %d absent, %d raised%s" % (
        args.release, len(todo), sum(1 for r in data["ops"].values() if r["status"] == "absent"), len(bad),
        (": " + ", ".join(bad)) if bad else ""), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
