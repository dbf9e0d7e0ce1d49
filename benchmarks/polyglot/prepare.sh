#!/bin/bash
# prepare.sh DEST
#
# Assembles the Python and Rust code benchmark's repositories under DEST/<project>/, from
# Debian 12 (bookworm) packages pinned to one version each: a Python library as its package
# directory (from python3-*), a Rust crate as published (from librust-*-dev: Cargo.toml,
# README, src/). Each repository gets one commit with a fixed author, committer, date and
# message, so its commit SHA is the same on every machine. Re-running rebuilds every one.
#
# Needs: Debian's package archive reachable (apt-get download; no root, nothing installed).
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DEST" >&2
  exit 2
fi
DEST=$1

# project | Debian package=version | directory inside the package | where it goes in the repo
PROJECTS=(
  "rich|python3-rich=13.3.1-1|usr/lib/python3/dist-packages/rich|rich"
  "click|python3-click=8.1.3-2|usr/lib/python3/dist-packages/click|click"
  "requests|python3-requests=2.28.1+dfsg-1|usr/lib/python3/dist-packages/requests|requests"
  "httpx|python3-httpx=0.23.3-1|usr/lib/python3/dist-packages/httpx|httpx"
  "apscheduler|python3-apscheduler=3.9.1-2|usr/lib/python3/dist-packages/apscheduler|apscheduler"
  "serde|librust-serde-dev=1.0.152-2|usr/share/cargo/registry/serde-1.0.152|."
  "regex|librust-regex-dev=1.7.1-1|usr/share/cargo/registry/regex-1.7.1|."
  "anyhow|librust-anyhow-dev=1.0.69-1|usr/share/cargo/registry/anyhow-1.0.69|."
  "clap|librust-clap-dev=4.0.32-1|usr/share/cargo/registry/clap-4.0.32|."
  "semver|librust-semver-dev=1.0.14-1|usr/share/cargo/registry/semver-1.0.14|."
)

# Git must not pick up the machine's own configuration or templates.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Benchmark Corpus" GIT_AUTHOR_EMAIL="corpus@bench.invalid"
export GIT_COMMITTER_NAME="Benchmark Corpus" GIT_COMMITTER_EMAIL="corpus@bench.invalid"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00+0000" GIT_COMMITTER_DATE="2026-01-01T00:00:00+0000"
export LC_ALL=C TZ=UTC
umask 022

mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for row in "${PROJECTS[@]}"; do
  IFS='|' read -r name pkg inside target <<<"$row"
  rm -rf "$work/deb" "$work/x" && mkdir -p "$work/deb" "$work/x"
  (cd "$work/deb" && apt-get download -qq "$pkg" 2>"$work/log") || {
    cat "$work/log" >&2
    echo "could not download $pkg (is Debian's archive reachable? try 'apt-get update')" >&2
    exit 1
  }
  dpkg-deb -x "$work"/deb/*.deb "$work/x"
  src=$work/x/$inside
  [ -d "$src" ] || { echo "$pkg has no $inside" >&2; exit 1; }

  repo=$DEST/$name
  rm -rf "$repo"
  mkdir -p "$repo/$target"
  tar -C "$src" --exclude=__pycache__ --exclude=.cargo-checksum.json \
      --exclude=.cargo_vcs_info.json -cf - . | tar -C "$repo/$target" -xf - --no-same-owner
  # normalise permissions so the tree hash does not depend on the machine
  find "$repo" -type d -exec chmod 755 {} +
  find "$repo" -type f -exec chmod 644 {} +
  find "$repo" -type l -delete

  git init -q -b main --template= "$repo"
  git -C "$repo" -c core.autocrlf=false -c core.fileMode=true add -A -f .
  git -C "$repo" -c commit.gpgsign=false commit -q -m "Import $name for the code benchmark"
  files=$(git -C "$repo" ls-files | wc -l)
  printf '%-12s %5d files  commit %s  from %s\n' \
    "$name" "$files" "$(git -C "$repo" rev-parse HEAD)" "$pkg"
done
