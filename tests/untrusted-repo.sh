#!/bin/sh
# untrusted-repo.sh DEST FIXTURE: a clone of the fixture repository with one
# tag per untrusted checkout of check_hostile's "untrusted" cases, each the
# v2.0.0 tree with one hostile change (file names, YAML, tree entries).
#
# The payloads: XSS sets data-pwned="42" on the document when a script or
# an event handler runs; OUT is a link to a site outside.
set -eu
dest=$1
fixture=$2
NF=aten/src/ATen/native/native_functions.yaml
DV=tools/autograd/derivatives.yaml
RNN=aten/src/ATen/native/cudnn/RNN.cpp
XSS='<img src=x onerror="document.documentElement.dataset.pwned=6*7">'
SCRIPT='<script>document.documentElement.dataset.pwned=6*7</script>'
NL='
'
CR=$(printf '\r')
ESC=$(printf '\033')
BEL=$(printf '\007')
RLO=$(printf '\342\200\256') # U+202E RIGHT-TO-LEFT OVERRIDE

git -c advice.detachedHead=false clone -q --no-hardlinks "$fixture" "$dest"
cd "$dest"
git remote remove origin
g() { git -c user.name=t -c user.email=t@localhost -c advice.detachedHead=false "$@"; }
# variant TAG: the v2.0.0 tree changed by the commands on stdin
variant() {
    g checkout -q v2.0.0
    sh -eu
    g add -A
    g commit -qm "$1"
    g tag "$1"
}
# moved NAME: cudnn/RNN.cpp (nn.LSTM's cuDNN kernel) renamed to NAME
moved() { mkdir -p "$(dirname "$1")"; git mv "$RNN" "$1"; }

# 1: a newline and a fence line in a file name; HTML after them
g checkout -q v2.0.0
moved "aten/src/ATen/native/cudnn/RNN$NL\`\`\`$NL$XSS) $XSS (.cpp"
g commit -qam case1 && g tag v4.1.0

# 2: a CR in a derivatives.yaml formula and in a dispatch key
variant v4.2.0 <<EOF
sed -i 's|^  self: handle_r_to_c(self.scalar_type(), grad)\$|  self: "handle_r_to_c(self.scalar_type(), grad)\\\\r$SCRIPT"|' $DV
sed -i 's|^    CPU: addmm_out_cpu\$|    "CPU\\\\r$SCRIPT": addmm_out_cpu|' $NF
grep -q 'grad)\\\\r<script>' $DV
grep -q 'CPU\\\\r<script>' $NF
EOF

# 3: a file name that ends its source link and starts one to a site outside
g checkout -q v2.0.0
moved "aten/src/ATen/native/cudnn) [click](https:/evil.example/RNN.cpp"
g commit -qam case3 && g tag v4.3.0

# 4: invalid UTF-8, ESC and BEL in a file name
g checkout -q v2.0.0
moved "aten/src/ATen/native/cudnn/RNN$(printf '\377\376')$ESC]0;owned$BEL$ESC[2J.cpp"
g commit -qam case4 && g tag v4.4.0

# 5: control characters and invalid UTF-8 in a file name (the diagram's labels)
g checkout -q v2.0.0
moved "aten/src/ATen/native/cudnn/RNN$(printf '\001\013\303(\300')&lt;]]>.cpp"
g commit -qam case5 && g tag v4.5.0

# 7: one 30 MB blob, 400 names (built with plumbing: 12 GB never touch the disk)
g checkout -q v2.0.0
blob=$(yes 'int filler_line_of_a_big_source_file(int x) { return x + 1; }' | head -c 30000000 |
       git hash-object -w --stdin)
i=0
while [ $i -lt 400 ]; do
    git update-index --add --cacheinfo 100644,"$blob",aten/src/ATen/native/big/Big$i.cpp
    i=$((i + 1))
done
tree=$(git write-tree)
commit=$(echo case7 | g commit-tree "$tree" -p "v2.0.0^{commit}")
g tag v4.7.0 "$commit"
git read-tree HEAD

# 11: one entry with 60,000 dispatch keys
variant v4.11.0 <<'EOF'
awk 'BEGIN { print "- func: many(Tensor self) -> Tensor"; print "  dispatch:";
             for (i = 0; i < 60000; i++) printf "    Key%d: many_kernel_%d\n", i, i }' \
    >> aten/src/ATen/native/native_functions.yaml
EOF

# 13: '||' in a formula
variant v4.13.0 <<EOF
sed -i 's|^  self: handle_r_to_c(self.scalar_type(), grad)\$|  self: handle_r_to_c(self.scalar_type(), grad \|\| grad)|' $DV
grep -q 'grad || grad' $DV
EOF

# 14: bidi controls in a file name and a dispatch key
g checkout -q v2.0.0
moved "aten/src/ATen/native/cudnn/RNN${RLO}ppc.exe.cpp"
sed -i "s|^    CPU: addmm_out_cpu\$|    CPU${RLO}UPC: addmm_out_cpu|" $NF
g commit -qam case14 && g tag v4.14.0

g checkout -q v2.0.0
