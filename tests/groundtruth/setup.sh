#!/bin/sh
# setup.sh: make sure both real PyTorch releases the ground truth runs are
# installed (tests/groundtruth/README.md):
#
#   host    Debian 12's python3-torch (1.13.1), for /usr/bin/python3
#   chroot  a Debian 13 (trixie) minbase tree with its python3-torch (2.6.0),
#           at ${TILEGYM_SKILL_CACHE_DIR:-$HOME/.cache/tilegym}/trixie-torch
#
# Idempotent: when everything is there it only checks (well under a second).
# The chroot is built once (debootstrap from the mirror this machine's apt
# uses, then apt-get inside it), into a temporary folder renamed when
# complete, so an interrupted build is started again, never used.
# Installing needs root; otherwise the command to run is printed.
#
# Usage: setup.sh [--print-root]   (--print-root: print the chroot's path)
# Exit status: 0 ready; 1 something is missing and could not be installed.
set -eu

HOST_VERSION=1.13.1
CHROOT_VERSION=2.6.0
SUITE=trixie
CACHE=${TILEGYM_SKILL_CACHE_DIR:-$HOME/.cache/tilegym}
ROOT=$CACHE/trixie-torch
STAMP=$ROOT/.groundtruth-ready
# host: the torch itself, debootstrap for the chroot, PyYAML for torchgen
# (compare.py reads each release's derivative names with its own torchgen)
HOST_PACKAGES="python3-torch debootstrap python3-yaml"

say() { echo "groundtruth: $*" >&2; }
fail() { say "$*"; exit 1; }

[ "${1:-}" = "--print-root" ] && { echo "$ROOT"; exit 0; }

is_root() { [ "$(id -u)" -eq 0 ]; }

apt_install() { # apt_install COMMAND... (quiet, non-interactive, output to stderr)
    DEBIAN_FRONTEND=noninteractive "$@" >&2
}

# The version of an installed Debian package, upstream part only (1.13.1).
pkg_version() { # pkg_version ADMINDIR PACKAGE
    dpkg-query --admindir="$1" -W -f='${Status} ${Version}' "$2" 2>/dev/null |
        sed -n 's/^install ok installed \([0-9]*:\)\{0,1\}\([0-9][0-9.]*\).*/\2/p'
}

# ---- host ---------------------------------------------------------------------

missing=""
for p in $HOST_PACKAGES; do
    [ -n "$(pkg_version /var/lib/dpkg "$p")" ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
    is_root || fail "missing Debian packages:$missing; run as root: apt-get install -y --no-install-recommends$missing"
    say "installing on the host:$missing"
    apt_install apt-get -o DPkg::Lock::Timeout=900 update -qq
    # shellcheck disable=SC2086
    apt_install apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $missing
fi
v=$(pkg_version /var/lib/dpkg python3-torch)
[ "$v" = "$HOST_VERSION" ] ||
    fail "the host's python3-torch is ${v:-not installed}, not $HOST_VERSION (Debian 12's): this harness expects Debian 12"

# ---- chroot -------------------------------------------------------------------

check_chroot() {
    v=$(pkg_version "$ROOT/var/lib/dpkg" python3-torch)
    [ "$v" = "$CHROOT_VERSION" ] ||
        fail "$ROOT has python3-torch ${v:-(none)}, not $CHROOT_VERSION; remove it to rebuild"
    exit 0
}
[ -f "$STAMP" ] && check_chroot

is_root || fail "no chroot at $ROOT; building it needs root (debootstrap, chroot)"
# One build at a time (test runs of other checkouts share the cache); the
# one that waited finds the chroot built.
mkdir -p "$CACHE"
exec 9>"$CACHE/trixie-torch.lock"
flock 9
[ -f "$STAMP" ] && check_chroot

# The Debian archive this machine's apt uses (only it is reachable): the
# first URIs of a deb822 source for the main suite, else sources.list.
mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk 'BEGIN { RS = ""; FS = "\n" }
         /(^|\n)Types:[^\n]*deb([ \t\n]|$)/ && !/debian-security/ {
             for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) {
                 split($i, f, /[ \t]+/); print f[2]; exit } }')
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
    mirror=$(awk '$1 == "deb" && $0 !~ /security/ {
                  for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
             /etc/apt/sources.list)
fi
[ -n "$mirror" ] || fail "cannot tell the Debian mirror from /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"

tmp=$ROOT.tmp
if [ -e "$tmp" ]; then
    say "removing an unfinished build at $tmp"
    rm -rf --one-file-system "$tmp"
fi
start=$(date +%s)
say "building the $SUITE chroot at $ROOT from $mirror (once; several minutes)"
debootstrap --variant=minbase "$SUITE" "$tmp" "$mirror" >"$CACHE/trixie-torch.log" 2>&1 ||
    fail "debootstrap failed; see $CACHE/trixie-torch.log"
say "installing python3-torch in the chroot"
# (no daemons may start in the chroot; /proc only for the install's scripts)
printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
chmod 755 "$tmp/usr/sbin/policy-rc.d"
unshare --mount --fork sh -c '
    mount -t proc proc "$1/proc" &&
    DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -qq --no-install-recommends python3-torch &&
    chroot "$1" apt-get clean' sh "$tmp" >>"$CACHE/trixie-torch.log" 2>&1 ||
    fail "installing python3-torch in the chroot failed; see $CACHE/trixie-torch.log"
v=$(pkg_version "$tmp/var/lib/dpkg" python3-torch)
[ "$v" = "$CHROOT_VERSION" ] ||
    fail "$SUITE's python3-torch is ${v:-not installable}, not $CHROOT_VERSION"
echo "python3-torch $v" >"$tmp/.groundtruth-ready"
rm -rf --one-file-system "$ROOT"
mv "$tmp" "$ROOT"
say "chroot ready at $ROOT ($(($(date +%s) - start)) s)"
