"""derivatives.py: which derivatives.yaml entry an autograd node comes from,
by the code generator of the release itself.

A node's class (NllLossBackward0) is named by torchgen when it reads
tools/autograd/derivatives.yaml (tools/autograd/load_derivatives.py:
_create_op_prefix turns the entry's base name into CamelCase + "Backward",
"ForwardBackward" becomes "Backward", and a counter per prefix numbers the
overloads in file order: AddBackward0 is add.Tensor, AddBackward1 add.Scalar).
Rather than copy that rule, node_entries() runs that release's own
load_derivatives() on that release's files, taken from the git checkout
with `git archive`, in a child interpreter (one torchgen per process).

Needs PyYAML (python3-yaml) for the interpreter running it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FILES = ["torchgen", "tools/autograd", "aten/src/ATen/native/native_functions.yaml",
         "aten/src/ATen/native/tags.yaml"]

# Run in the extracted tree: print {node: [entry, dispatch key]} as JSON.
CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from tools.autograd.load_derivatives import load_derivatives
r = load_derivatives(sys.argv[1] + "/tools/autograd/derivatives.yaml",
                     sys.argv[1] + "/aten/src/ATen/native/native_functions.yaml",
                     sys.argv[1] + "/aten/src/ATen/native/tags.yaml")
infos = r[0] if isinstance(r, tuple) else r
out = {}
for schema, per_key in infos.items():
    for key, info in per_key.items():
        if info.op:
            out[info.op] = [str(schema.name), key]
json.dump(out, sys.stdout)
"""

ENTRY = re.compile(r"^- name:\s*([A-Za-z0-9_.]+)\s*\(")


def node_entries(source, tag):
    """{node class: {"entry": "nll_loss_forward", "key": "Default", "line": N}}
    for every node the code generator of `tag` names. `line` is the entry's
    `- name:` line in tools/autograd/derivatives.yaml; a node of a generated
    entry that is not in that file (view_copy variants) is left out.
    Raises RuntimeError when git or the generator fails."""
    tmp = tempfile.mkdtemp(prefix="optrace-derivatives-")
    try:
        archive = subprocess.run(["git", "-C", source, "archive", tag] + FILES, capture_output=True)
        if archive.returncode != 0:
            raise RuntimeError("git archive %s in %s: %s" % (tag, source, archive.stderr.decode().strip()))
        untar = subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, capture_output=True)
        if untar.returncode != 0:
            raise RuntimeError("tar: " + untar.stderr.decode().strip())
        child = subprocess.run([sys.executable, "-c", CHILD, tmp], capture_output=True, text=True)
        if child.returncode != 0:
            tail = child.stderr.strip().splitlines()[-1:] or ["exit status %d" % child.returncode]
            raise RuntimeError("load_derivatives() of %s failed: %s" % (tag, tail[0]))
        nodes = json.loads(child.stdout)
        lines = {}
        with open(os.path.join(tmp, "tools/autograd/derivatives.yaml"), encoding="utf-8") as f:
            for n, text in enumerate(f, 1):
                m = ENTRY.match(text)
                if m:
                    lines.setdefault(m.group(1), n)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {node: {"entry": entry, "key": key, "line": lines[entry]}
            for node, (entry, key) in nodes.items() if entry in lines}


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: derivatives.py SOURCE TAG   (prints node -> entry as JSON)", file=sys.stderr)
        sys.exit(2)
    json.dump(node_entries(sys.argv[1], sys.argv[2]), sys.stdout, indent=1, sort_keys=True)
    print()
