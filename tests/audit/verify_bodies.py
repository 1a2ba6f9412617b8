#!/usr/bin/env python3
"""Check optrace diff's "implementation changed" rows against both trees.

usage: verify_bodies.py SOURCE_REPO DIFF_JSON OLD_TRACE_JSON NEW_TRACE_JSON

Independently of optrace's lexer and fingerprints, for every function
the two trace.json files both have on a main path (paired as optrace
diff pairs them: the same name in the same file, else a name defined
once on each side), this reads its definition from the two tags with
git, and decides whether its code changed:

  - C++/CUDA: the definition from its line to the brace that closes its
    body, as a token sequence (comments, preprocessor lines and blanks
    dropped);
  - Python: the def's AST (ast.dump, docstring dropped).

It prints every disagreement with the diff report (a row for a function
whose code is the same, a function whose code changed with no row) and
the statements added/removed it counts (a longest common subsequence of
the statements: C++ tokens cut after ; { }, Python's logical lines) next
to optrace's. Exit status 1 on a disagreement.
"""
import ast
import io
import json
import re
import subprocess
import sys
import textwrap
import tokenize

TOKEN = re.compile(r'R"([^(\s]*)\((?:.|\n)*?\)\1"|"(?:\\.|[^"\\\n])*"|'
                   r"'(?:\\.|[^'\\\n])*'|//[^\n]*|/\*(?:.|\n)*?\*/|\w+|\S")

_files = {}


def show(repo, tag, path):
    key = (tag, path)
    if key not in _files:
        _files[key] = subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], check=True,
                                     capture_output=True).stdout.decode("utf-8", "replace")
    return _files[key]


def cpp_lines(text, line):
    """Token lines of the C++ definition starting at `line`."""
    start = sum(len(x) + 1 for x in text.split("\n")[:line - 1])
    depth, opened, out, cur, cur_line = 0, False, [], [], line
    pp = False
    pos = start
    for m in TOKEN.finditer(text, start):
        # line of this token
        cur_line += text.count("\n", pos, m.start())
        seg_start = text.rfind("\n", 0, m.start()) + 1
        pos = m.start()
        tok = m.group(0)
        if tok.startswith("//") or tok.startswith("/*"):
            cur_line += tok.count("\n")
            pos = m.end()
            continue
        if tok == "#" and not text[seg_start:m.start()].strip():
            # a preprocessor line (with continuations): skipped
            end = m.start()
            while True:
                nl = text.find("\n", end)
                if nl < 0 or text[nl - 1] != "\\":
                    break
                end = nl + 1
            pp = nl
            continue
        if pp and m.start() < pp:
            continue
        pp = False
        while len(out) < cur_line - line:
            out.append(cur)
            cur = []
        cur.append(tok)
        cur_line += tok.count("\n")
        pos = m.end()
        if tok == "{":
            depth += 1
            opened = True
        elif tok == "}":
            depth -= 1
            if opened and depth == 0:
                out.append(cur)
                break
    toks = [t for x in out for t in x]
    return statements(toks, lambda t: t in (";", "{", "}")), " ".join(toks)


def statements(toks, ends):
    """Cut a token list into statements (trailing commas before a bracket dropped)."""
    out, cur = [], []
    for t in toks:
        if t in (")", "]", "}") and cur and cur[-1] == ",":
            cur.pop()
        cur.append(t)
        if ends(t):
            out.append(" ".join(cur))
            cur = []
    if cur:
        out.append(" ".join(cur))
    return out


def py_def(text, line):
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign, ast.AnnAssign)) \
                and node.lineno == line:
            return node
    for node in ast.walk(tree):  # a decorated def: its line is the def's
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                any(d.lineno <= line for d in node.decorator_list) and node.lineno >= line:
            return node
    return None


def py_lines(text, line):
    node = py_def(text, line)
    if node is None:
        return None, None
    body = list(getattr(node, "body", []))
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None),
                                                             ast.Constant) \
            and isinstance(body[0].value.value, str):
        node.body = body[1:]
        doc_lines = set(range(body[0].lineno, body[0].end_lineno + 1))
    else:
        doc_lines = set()
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        # an assignment like `conv2d = _add_docstr(torch.conv2d, r"""...""")`:
        # its multi-line strings are the docstring
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and "\n" in sub.value:
                doc_lines |= set(range(sub.lineno + 1, sub.end_lineno))
                sub.value = ""
    src = "\n".join(text.split("\n")[node.lineno - 1:node.end_lineno]) + "\n"
    toks = []
    for t in tokenize.generate_tokens(io.StringIO(textwrap.dedent(src)).readline):
        if t.type in (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
                      tokenize.ENDMARKER):
            continue
        if t.start[0] + node.lineno - 1 in doc_lines:
            continue
        if t.type == tokenize.NEWLINE:
            toks.append("\n")
        elif t.type == tokenize.STRING and t.string[-3:] in ('"""', "'''"):
            continue  # optrace leaves every triple-quoted string out
        elif t.type == tokenize.STRING and re.match(r"^[rbuRBU]*['\"]", t.string):
            toks.append(re.sub(r"^([rbuRBU]*)'(.*)'$", r'\1"\2"', t.string))
        else:
            toks.append(t.string)
    stmts = [x.replace(" \n", "").strip() for x in statements(toks, lambda t: t == "\n")]
    return [x for x in stmts if x], ast.dump(node)


def lcs(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def body(repo, tag, path, line):
    text = show(repo, tag, path)
    if path.endswith(".py"):
        return py_lines(text, line)
    return cpp_lines(text, line)


def main_bodies(trace):
    out = {}
    for op in trace["ops"]:
        for s in op["steps"]:
            if s.get("body") and s["main"]:
                name = s["op"] if s["layer"] == "meta" and s["op"] else s["symbol"]
                out.setdefault((name, s["file"]), set()).add(s["line"])
    return out


def main():
    repo, diff_path, old_path, new_path = sys.argv[1:5]
    diff = json.load(open(diff_path))
    old, new = json.load(open(old_path)), json.load(open(new_path))
    otag, ntag = old["pytorch"]["tag"], new["pytorch"]["tag"]
    rows = {}
    for ch in diff["changes"]:
        if ch["class"] != "implementation":
            continue
        it = ch["items"][0]
        rows[(ch["old"]["file"], ch["old"]["line"], ch["new"]["file"], ch["new"]["line"])] = \
            (it["subject"], it["statements_added"], it["statements_removed"])
    bad = 0
    checked = same = 0
    ob, nb = main_bodies(old), main_bodies(new)
    for (name, path), olines in sorted(ob.items()):
        nlines = nb.get((name, path))
        if not nlines or len(olines) != 1 or len(nlines) != 1:
            continue  # overloads and moves: paired by order; checked through the rows below
        ol, nl = next(iter(olines)), next(iter(nlines))
        a, aw = body(repo, otag, path, ol)
        b, bw = body(repo, ntag, path, nl)
        if aw is None or bw is None:
            print(f"? {name} {path}:{ol}/{nl}: no definition found by this checker")
            continue
        checked += 1
        row = rows.pop((path, ol, path, nl), None)
        if aw == bw:
            same += 1
            if row:
                bad += 1
                print(f"WRONG {name} {path}:{ol} -> {nl}: reported changed {row[1:]}, code is the same")
            continue
        common = lcs(a, b)
        plus, minus = len(b) - common, len(a) - common
        if not row:
            bad += 1
            print(f"MISSED {name} {path}:{ol} -> {nl}: code changed (+{plus} -{minus}), no row")
        elif (row[1], row[2]) != (plus, minus):
            print(f"count {name} {path}:{ol} -> {nl}: optrace +{row[1]} -{row[2]}, "
                  f"checker +{plus} -{minus}")
    for key, row in sorted(rows.items()):
        of, ol, nf, nl = key
        a, aw = body(repo, otag, of, ol)
        b, bw = body(repo, ntag, nf, nl)
        checked += 1
        if aw is not None and aw == bw:
            bad += 1
            print(f"WRONG {row[0]} {of}:{ol} -> {nf}:{nl}: reported changed, code is the same")
    print(f"{checked} functions checked, {same} the same code, {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
