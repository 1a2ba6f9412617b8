#!/bin/sh
# Install the Debian packages optrace needs to build, test and benchmark,
# but only those that are missing. Needs root for apt-get; otherwise prints
# the command to run.
set -eu

# build: compiler, pkg-config and the six libraries; help2man (the man pages)
# test:  check, git/tar/xz (real-release import), mkdocs (site build test),
#        python3-torch (the release of Debian's torch, read from dpkg),
#        man-db (the man pages are rendered), python3-markdown and chromium
#        (check_hostile renders hostile pages as MkDocs does and loads them
#        in a headless browser; check_site opens the offline bundle in it),
#        python3-sphinx, python3-myst-parser and hugo (check_site builds the
#        output folder with Sphinx + MyST-Parser and with Hugo)
# tools: clang + compiler-rt (fuzzing, sanitizers), valgrind, ripgrep (bench)
# ground truth (tests/groundtruth): debootstrap (the 2.6.0 chroot), python3-yaml
#        (each release's torchgen); its setup.sh checks python3-torch, which is listed
#        above for the test of Debian's torch
PACKAGES="gcc make pkg-config help2man libyaml-dev libgit2-dev libcmark-gfm-dev
libcmark-gfm-extensions-dev libgraphviz-dev libpcre2-dev check git tar xz-utils
ca-certificates python3 python3-torch man-db mkdocs python3-markdown chromium
python3-sphinx python3-myst-parser hugo clang libclang-rt-14-dev valgrind ripgrep
fonts-dejavu-core debootstrap python3-yaml"

missing=""
for p in $PACKAGES; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "optrace: missing Debian packages:$missing" >&2
    echo "optrace: run as root:  apt-get install -y$missing" >&2
    exit 1
fi

echo "optrace: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
