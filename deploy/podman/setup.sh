#!/usr/bin/env bash
# Makes podman build and run the Dockerfile on a machine with no Docker engine and no
# registry: installs podman, runc and debootstrap (apt), points podman at a private
# configuration and image store, and makes the Dockerfile's two base images locally:
#   debian:bookworm-slim  `debootstrap --variant=minbase bookworm` from apt's own mirror
#   swift:6.3-bookworm    that base, the packages the official Swift bookworm image
#                         installs, and this machine's Swift toolchain (the usr tree
#                         `which swift` lives in)
# Source it (`source deploy/podman/setup.sh`): it exports CONTAINERS_CONF and
# CONTAINERS_STORAGE_CONF, so `podman build`/`podman run` in the same shell use them.
# Images are kept in $DEVICE_ORACLE_PODMAN (default ~/.cache/device-oracle/podman): a
# second run takes seconds. Needs root (debootstrap, and podman's root mode).
set -euo pipefail

podman_home=${DEVICE_ORACLE_PODMAN:-${XDG_CACHE_HOME:-$HOME/.cache}/device-oracle/podman}
mkdir -p "$podman_home"

missing=()
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if (( ${#missing[@]} )); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# runc: crun refuses a hybrid cgroup v1/v2 layout; nofile/nproc: without
# CAP_SYS_RESOURCE podman may not raise the limits past what the sandbox allows
# (conmon caps nproc at 32768). No system file is edited.
cat >"$podman_home/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
CONF
cat >"$podman_home/storage.conf" <<CONF
[storage]
driver = "overlay"
graphroot = "$podman_home/storage"
runroot = "$podman_home/run"
CONF
export CONTAINERS_CONF=$podman_home/containers.conf
export CONTAINERS_STORAGE_CONF=$podman_home/storage.conf

# The mirror apt uses here (the only registry this machine reaches).
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/* *$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

have_image() { podman image exists "$1"; }

if ! have_image debian:bookworm-slim; then
  root=$(mktemp -d "$podman_home/rootfs.XXXXXX")
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$podman_home/debootstrap-slim.log"
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin
  tar -C "$root" -c . | podman import --quiet - debian:bookworm-slim >/dev/null
  rm -rf "$root"
fi

if ! have_image swift:6.3-bookworm; then
  toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")  # …/usr
  # The official swift:bookworm image's packages, less the debugger's Python.
  packages=binutils,git,unzip,gnupg2,libc6-dev,libcurl4-openssl-dev,libedit2,libgcc-12-dev,libpython3-dev,libsqlite3-0,libstdc++-12-dev,libxml2-dev,libncurses-dev,libz3-dev,pkg-config,tzdata,zlib1g-dev
  root=$(mktemp -d "$podman_home/rootfs.XXXXXX")
  debootstrap --variant=minbase --include="$packages" bookworm "$root" "$mirror" >"$podman_home/debootstrap-swift.log"
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin
  cp -a "$toolchain/." "$root/usr/"
  tar -C "$root" -c . | podman import --quiet - swift:6.3-bookworm >/dev/null
  rm -rf "$root"
fi
