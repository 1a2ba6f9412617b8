#!/usr/bin/env bash
# fetch-pytorch-source.sh DEST [VERSION...]
#
# Make DEST a git repository in which every tag v<VERSION> names a commit
# holding that PyTorch release's source tree (default versions: 1.13.1 2.6.0),
# which is what optrace reads through libgit2. HEAD is left detached at the
# first VERSION. When every tag is already there, nothing is touched.
#
# Where the sources come from, for each missing tag:
#   1. for the releases Debian packages (1.13.1 from bookworm, 2.6.0 from
#      trixie): the release tarball of Debian's "pytorch" source package,
#      kept in PYTORCH_SOURCE_CACHE (default ~/.cache/pytorch-debian-src):
#      a cached tarball is used without any network, else only its .dsc and
#      the orig tarball are downloaded (apt's own downloader, each checked
#      against the SHA-256 of the signed Sources index), and the tarball is
#      checked against the .dsc. The tree is committed and tagged with a
#      fixed author and date, so the same tarball always gives the same
#      commit id, on every machine;
#   2. otherwise (another release, or Debian failed) the upstream repository
#      (OPTRACE_SOURCE_URL, default https://github.com/pytorch/pytorch.git),
#      when `git ls-remote` answers within 2 s: the tag is fetched shallowly
#      (depth 1). No network costs at most those 2 s.
#
# Exit status: 0 when every tag is present, 1 on any failure (the message
# starts with "fetch-pytorch-source:").
set -euo pipefail

me=fetch-pytorch-source
say() { echo "$me: $*" >&2; }
die() { say "$*"; exit 1; }

if [ $# -lt 1 ] || [ -z "$1" ]; then
	die "usage: ci/fetch-pytorch-source.sh DEST [VERSION...] (default: 1.13.1 2.6.0)"
fi
dest=$1
shift
if [ $# -gt 0 ]; then versions=("$@"); else versions=(1.13.1 2.6.0); fi
for v in "${versions[@]}"; do
	[[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "'$v' is not a release version (X.Y.Z)"
done
url=${OPTRACE_SOURCE_URL:-https://github.com/pytorch/pytorch.git}
cache=${PYTORCH_SOURCE_CACHE:-$HOME/.cache/pytorch-debian-src}
apt_helper=/usr/lib/apt/apt-helper
command -v git >/dev/null || die "git is not installed"

# Every git command runs without automatic gc: a background gc started by
# one command would race the explicit one at the end ("gc is already running").
gitopts=(-c gc.auto=0 -c gc.autoDetach=false -c maintenance.auto=false
	-c commit.gpgSign=false -c tag.gpgSign=false -c core.autocrlf=false)
g() { git -C "$dest" "${gitopts[@]}" "$@"; }
has_tag() { g rev-parse -q --verify "refs/tags/v$1^{commit}" >/dev/null 2>&1; }

# ---- DEST ----------------------------------------------------------------------

if [ -e "$dest" ] && [ ! -d "$dest" ]; then
	die "$dest exists and is not a folder"
fi
mkdir -p "$dest" || die "cannot create $dest"
dest_abs=$(cd "$dest" && pwd -P)
gitopts+=(-c "safe.directory=$dest_abs")
# Only DEST itself counts: a folder inside some other repository is not one.
if [ ! -e "$dest/.git" ]; then
	[ -z "$(ls -A "$dest")" ] || die "$dest is neither empty nor a git repository: choose another DEST or remove it"
	git -c init.defaultBranch=main init -q "$dest" || die "cannot create a git repository in $dest"
	say "created an empty repository in $dest"
fi
g rev-parse --git-dir >/dev/null 2>&1 || die "$dest/.git is not a usable git repository"

missing=()
for v in "${versions[@]}"; do
	has_tag "$v" || missing+=("$v")
done
if [ ${#missing[@]} -eq 0 ]; then
	say "$dest already has$(printf ' v%s' "${versions[@]}"): nothing to do"
	exit 0
fi

# ---- way 1: Debian ----------------------------------------------------------------

debian_suite() {
	case $1 in
	1.13.1) echo bookworm ;;
	2.6.0) echo trixie ;;
	*) return 1 ;;
	esac
}

# The Debian mirror this machine's apt already uses (not the security archive).
debian_mirror() {
	local f u=""
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		u=$(awk '$1 == "URIs:" { for (i = 2; i <= NF; i++) print $i }' "$f" |
			grep -v -e security -e nodesource -e google | head -n 1 || true)
		[ -n "$u" ] && break
	done
	if [ -z "$u" ] && [ -f /etc/apt/sources.list ]; then
		u=$(awk '$1 == "deb" && !/security/ { print $2; exit }' /etc/apt/sources.list)
	fi
	[ -n "$u" ] || return 1
	echo "$u"
}

cached_tarball() { # VERSION -> the cached orig tarball, or nothing
	local f
	for f in "$cache"/pytorch_"$1"+dfsg.orig.tar.*; do
		if [ -f "$f" ]; then
			echo "$f"
			return
		fi
	done
}

# The .dsc of the cached source package that lists TARBALL, or nothing.
dsc_of() { # TARBALL
	grep -l -F " $(basename "$1")" "$cache"/*.dsc 2>/dev/null | head -n 1 || true
}

# Check a tarball against the SHA-256 its .dsc lists.
check_tarball() { # TARBALL DSC
	local name want have
	name=$(basename "$1")
	want=$(awk -v n="$name" '/^Checksums-Sha256:/ { s = 1; next } /^[^ ]/ { s = 0 } s && $3 == n { print $1 }' "$2")
	[ -n "$want" ] || die "$2 lists no SHA-256 of $name"
	have=$(sha256sum "$1" | cut -d' ' -f1)
	[ "$want" = "$have" ] || die "$1 does not match the SHA-256 in $2: delete it and run again"
}

# Download what VERSION needs of Debian's source package into the cache:
# its .dsc and its orig tarball, nothing else (the Debian patch set is not
# needed, and may be gone from the mirror).
debian_download() { # VERSION
	local v=$1 suite mirror work uri name size hash got=0
	suite=$(debian_suite "$v")
	command -v apt-get >/dev/null || die "PyTorch $v: apt-get is needed to download Debian's source package"
	[ -x "$apt_helper" ] || die "PyTorch $v: $apt_helper (package apt) is needed to download Debian's source package"
	mirror=$(debian_mirror) || die "PyTorch $v: no Debian mirror in this machine's apt configuration"
	mkdir -p "$cache" || die "cannot create the cache $cache"
	work="$cache/apt-$suite"
	mkdir -p "$work/lists/partial"
	printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$mirror" "$suite" >"$work/src.sources"
	local apt=(-qq -o "Dir::Etc::sourcelist=$work/src.sources"
		-o "Dir::Etc::sourceparts=/nonexistent" -o "Dir::State::Lists=$work/lists"
		-o "APT::Sandbox::User=root")
	say "downloading Debian's pytorch $v source package ($suite, $mirror): its .dsc and orig tarball"
	apt-get "${apt[@]}" update >&2 || die "PyTorch $v: apt-get update for Debian $suite failed"
	# 'URI' NAME SIZE SHA256:HEX, one line per file of the package
	while read -r uri name size hash; do
		case $name in
		pytorch_"$v"+dfsg-*.dsc | pytorch_"$v"+dfsg.orig.tar.*) ;;
		*) continue ;;
		esac
		uri=${uri#\'}
		uri=${uri%\'}
		"$apt_helper" "${apt[@]}" download-file "$uri" "$cache/$name.part" "$hash" >&2 ||
			die "PyTorch $v: cannot download $name ($size bytes) from $mirror"
		mv -f "$cache/$name.part" "$cache/$name"
		got=$((got + 1))
	done < <(apt-get "${apt[@]}" source --print-uris pytorch 2>/dev/null | grep "^'" || true)
	[ "$got" -eq 2 ] || die "PyTorch $v: Debian $suite did not provide pytorch_$v+dfsg.orig.tar.* and its .dsc"
}

debian_tarball() { # VERSION -> prints the path of the orig tarball, checked
	local v=$1 tb dsc=""
	tb=$(cached_tarball "$v")
	[ -n "$tb" ] && dsc=$(dsc_of "$tb")
	if [ -z "$tb" ] || [ -z "$dsc" ]; then
		debian_download "$v"
		tb=$(cached_tarball "$v")
		[ -n "$tb" ] || die "PyTorch $v: Debian's pytorch_$v+dfsg.orig.tar.* is missing from $cache"
		dsc=$(dsc_of "$tb")
		[ -n "$dsc" ] || die "PyTorch $v: no .dsc in $cache lists $(basename "$tb")"
	fi
	check_tarball "$tb" "$dsc"
	echo "$tb"
}

# ---- way 2: upstream (asked once, and only when needed) -------------------------------

online=""
upstream_online() {
	if [ -z "$online" ]; then
		if GIT_TERMINAL_PROMPT=0 timeout 2 git ls-remote "$url" HEAD >/dev/null 2>&1; then
			online=true
		else
			online=false
			say "$url is unreachable (git ls-remote gave no answer within 2 s)"
		fi
	fi
	$online
}

fetch_upstream() { # VERSION -> 0 when the tag is now present
	say "fetching v$1 from $url (depth 1)"
	GIT_TERMINAL_PROMPT=0 g fetch -q --depth 1 --no-tags "$url" "+refs/tags/v$1:refs/tags/v$1" &&
		has_tag "$1"
}

tmp=""
cleanup() { [ -z "$tmp" ] || rm -rf "$tmp"; }
trap cleanup EXIT

gitdir=$(g rev-parse --absolute-git-dir)
# The commit the next import builds on: the one before it, as one history.
parent=$(g rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null || true)

import_debian() { # VERSION TARBALL
	local v=$1 tb=$2 top tree commit
	say "importing $(basename "$tb") as v$v"
	tmp=$(mktemp -d)
	tar -xf "$tb" -C "$tmp" || die "cannot unpack $tb"
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	if [ -z "$top" ] || [ ! -f "$top/aten/src/ATen/native/native_functions.yaml" ]; then
		die "$tb does not hold a PyTorch source tree"
	fi
	# Stage the unpacked tree through a private index: DEST's work tree and
	# index are never touched, and no files are copied.
	GIT_INDEX_FILE="$tmp/index" git -C "$top" --git-dir="$gitdir" --work-tree=. "${gitopts[@]}" \
		add -A -f || die "cannot add the $v sources to $dest"
	tree=$(GIT_INDEX_FILE="$tmp/index" g write-tree) || die "cannot write the $v tree"
	commit=$(GIT_AUTHOR_NAME="PyTorch release import" GIT_AUTHOR_EMAIL="import@localhost" \
		GIT_COMMITTER_NAME="PyTorch release import" GIT_COMMITTER_EMAIL="import@localhost" \
		GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		g commit-tree "$tree" ${parent:+-p "$parent"} -m "PyTorch $v (Debian source package)") ||
		die "cannot commit the $v tree"
	g tag "v$v" "$commit" || die "cannot tag v$v"
	parent=$commit
	rm -rf "$tmp"
	tmp=""
}

imported=false
for v in "${missing[@]}"; do
	if debian_suite "$v" >/dev/null; then
		# a subshell: a failure here (no mirror, a bad download) leaves the
		# upstream repository to try
		if tb=$(debian_tarball "$v"); then
			import_debian "$v" "$tb"
			imported=true
			continue
		fi
		say "PyTorch $v: Debian's source package failed: trying $url"
	fi
	if upstream_online && fetch_upstream "$v"; then
		continue
	fi
	if ! debian_suite "$v" >/dev/null; then
		if $online; then
			die "PyTorch $v: fetching tag v$v from $url failed, and Debian packages only 1.13.1 and 2.6.0"
		fi
		die "PyTorch $v: $url is unreachable, and Debian packages only 1.13.1 and 2.6.0: fetch tag v$v into $dest by hand, or set OPTRACE_SOURCE_URL to a repository that has it"
	fi
	die "PyTorch $v: neither Debian's source package nor $url gave it (see above)"
done

# ---- finish ----------------------------------------------------------------------------

if $imported; then
	say "packing the objects"
	g gc -q --prune=now || die "git gc failed in $dest"
fi
for v in "${versions[@]}"; do
	has_tag "$v" || die "v$v is still missing from $dest"
done
g checkout -q --detach "v${versions[0]}" ||
	die "the tags are in $dest, but v${versions[0]} cannot be checked out (local changes?)"
say "$dest is at v${versions[0]}; tags: $(g tag | tr '\n' ' ')"
