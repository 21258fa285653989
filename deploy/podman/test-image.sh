#!/usr/bin/env bash
# Builds the image from the Dockerfile with podman (deploy/podman/setup.sh makes the
# base images) and tests the running container as test infrastructure runs it:
# /healthz, one POST per ruleset, a non-root process, the HEALTHCHECK, a read-only
# root filesystem with no tmpfs, the memory budget read from the container's cgroup
# (--memory 256m), the image's size and what its binary links, and a SIGTERM during
# a long request (the request finishes, the container exits 0).
# Usage: deploy/podman/test-image.sh [--build-only] [TAG]   (default device-oracle:test)
# --build-only builds the image and stops: .ci/run builds it early, in the background,
# and the full run then finds every layer in podman's cache.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
build_only=0
[[ ${1:-} == --build-only ]] && { build_only=1; shift; }
tag=${1:-device-oracle:test}
source deploy/podman/setup.sh

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
container=
cleanup() { [[ -n $container ]] && podman rm -f "$container" >/dev/null 2>&1 || true; }
trap cleanup EXIT

start=$(date +%s)
podman build --format docker --pull=never --quiet -t "$tag" . >/dev/null  # docker format: OCI drops HEALTHCHECK
echo "built $tag in $(( $(date +%s) - start )) s"
(( ! build_only )) || exit 0

size=$(podman image inspect --format '{{.Size}}' "$tag")
(( size <= 40 * 1000 * 1000 )) || fail "image is $size bytes, over 40 MB"
pass "image size $(( size / 1000 / 1000 )) MB"
user=$(podman image inspect --format '{{.Config.User}}' "$tag")
[[ $user == 10001:10001 ]] || fail "image user is '$user'"
healthcheck=$(podman image inspect --format '{{json .Config.Healthcheck}}' "$tag")
[[ $healthcheck == *healthcheck* ]] || fail "image has no HEALTHCHECK: $healthcheck"
# Everything in the image: the binary and the libraries its ldd lists, nothing else.
files=$(podman image save "$tag" --format docker-archive | tar -xO --wildcards '*.tar' 2>/dev/null | tar -t 2>/dev/null | grep -v '/$' | sort -u)
echo "$files" | grep -qvE '^(usr/local/bin/device-oracle|lib64/ld-linux-x86-64\.so\.2|lib/x86_64-linux-gnu/lib(c|m|stdc\+\+|gcc_s)\.so\.[0-9]+)$' \
  && fail "unexpected files in the image: $(echo "$files" | grep -vE 'device-oracle|ld-linux|lib(c|m|stdc\+\+|gcc_s)\.so' | head)"
pass "image holds the binary, glibc, libstdc++ and libgcc_s: $(echo "$files" | tr '\n' ' ')"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# No tmpfs anywhere (podman adds them to --read-only unless told not to).
# podman says it cannot reach systemd to time the HEALTHCHECK: there is none here, so
# the check is run by hand below.
container=$(podman run -d -p "127.0.0.1:$port:8080" --read-only --read-only-tmpfs=false --memory 256m "$tag")
for _ in $(seq 1 100); do curl -sf "localhost:$port/healthz" >/dev/null && break; sleep 0.1; done
[[ $(curl -s "localhost:$port/healthz") == '{"status":"ok"}' ]] || fail "/healthz"
pass "/healthz"

pid=$(podman inspect --format '{{.State.Pid}}' "$container")
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
[[ $uid == 10001 ]] || fail "the server runs as uid $uid"
pass "the server runs as uid 10001"
[[ $(podman inspect --format '{{.HostConfig.ReadonlyRootfs}}' "$container") == true ]] || fail "root filesystem not read-only"
mounts=$(podman inspect --format '{{json .Mounts}}' "$container")
# /dev, /dev/shm and the masked /proc and /sys paths are the runtime's own.
writable=$(awk '$3 == "tmpfs" && $2 !~ "^/(dev|proc|sys)(/|$)"' "/proc/$pid/mounts")
[[ -z $writable ]] || fail "a tmpfs is mounted: $writable"
pass "read-only root filesystem, no tmpfs for the server to write to (volumes: $mounts)"

budget=$(podman logs "$container" 2>&1 | sed -n 's/.*"msg":"listening".*"maxMemoryBytes":\([0-9]*\),"maxMemorySource":"\([a-z]*\)".*/\1 \2/p')
[[ $budget == "134217728 cgroup" ]] || fail "memory budget from the startup line: '$budget' (want half of 256 MiB, from the cgroup)"
pass "memory budget 128 MiB, read from the container's cgroup"

podman healthcheck run "$container" >/dev/null 2>&1 || fail "HEALTHCHECK"
pass "HEALTHCHECK (podman healthcheck run: no systemd here to run it periodically)"

bodies=$(mktemp -d)
python3 bench/bodies/generate.py "$bodies" >/dev/null
for route in playback:/playback/apply haptics:/haptics/contract refresh:/refresh/run audio-session:/audio-session/run; do
  status=$(curl -s -o /dev/null -w '%{http_code}' "localhost:$port${route#*:}" --data-binary "@$bodies/${route%%:*}-small.json")
  [[ $status == 200 ]] || fail "POST ${route#*:}: $status"
done
pass "one POST per ruleset: 200"

# A long request: a log padded to 3 MB with JSON white space, sent at 1 MB/s (curl's
# rate limit holds both ways, so the answer is kept small), SIGTERM a second in. The
# server stops accepting, finishes the request it is reading, and exits 0.
large=$bodies/padded.json
python3 -c 'import sys; sys.stdout.write("{\"events\":[{\"type\":\"userPlayed\"}]" + " " * 3000000 + "}")' >"$large"
curl -s -o "$large.answer" -w '%{http_code}' --limit-rate 1M "localhost:$port/playback/apply" \
  -H 'Content-Type: application/json' --data-binary "@$large" >"$large.status" &
curl_pid=$!
sleep 1
kill -0 "$curl_pid" 2>/dev/null || fail "the long request ended before SIGTERM"
podman kill --signal TERM "$container" >/dev/null
wait "$curl_pid" || true
[[ $(cat "$large.status") == 200 ]] || fail "the request in flight at SIGTERM: $(cat "$large.status")"
grep -q '"verdict":"unchecked"' "$large.answer" || fail "the answer in flight at SIGTERM: $(head -c 300 "$large.answer")"
exit_code=$(podman wait "$container")
[[ $exit_code == 0 ]] || fail "exit status after SIGTERM: $exit_code"
rm -rf "$bodies" "$large.answer" "$large.status"
pass "SIGTERM during a long request: it finished (200), the container exited 0"
echo "image test passed in $(( $(date +%s) - start )) s"
