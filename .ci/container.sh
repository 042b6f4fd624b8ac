#!/usr/bin/env bash
# Builds the project's Dockerfile (unchanged, classic builder) and runs the image, on a machine
# with no Docker daemon and no image registry, only Debian's package archive and crates.io:
#   1. installs docker.io, debootstrap and iproute2 from Debian;
#   2. starts a private dockerd (own data-root, exec-root, pidfile, unix socket, overlay2, own
#      bridge, no iptables/ip_forward changes) and stops it by PID on exit, also on failure;
#   3. builds the base images the Dockerfile's FROM lines name, as local stand-ins:
#      - debian:bookworm-slim: debootstrap --variant=minbase with the official image's apt sources
#        (deb.debian.org bookworm, bookworm-updates, bookworm-security) and its slim dpkg settings
#        (debuerreotype's "slimify": no docs except copyright files, no man/info/locales);
#      - rust:<ver>-slim-bookworm: that stand-in + gcc/libc6-dev (as the official image) + the
#        Rust toolchain of this machine (rustup layout under /usr/local, like the official image),
#        trusting the CA bundle this machine's clients use (/etc/ssl/certs/ca-certificates.crt,
#        read at build time; it goes into the builder stand-in only, never the final image);
#   4. docker build of the project's Dockerfile (DOCKER_BUILDKIT=0, --network host: see below);
#   5. runs the image and checks /healthz, POST /v1/plans, uid/gid 10001, Docker health `healthy`
#      (default bind and FABRIC_TCO_BIND=0.0.0.0:9090), `docker stop` exit 0 within the grace
#      period, JSON log lines; prints build time and image size.
#
# Network: the image builds run with `--network host`, so apt and cargo inside the build reach the
# archives exactly as this machine does (its DNS and egress). The containers under test run on a
# private bridge without NAT (dockerd --iptables=false --ip-forward=false), reached from the host by
# their bridge address: the script never touches the machine's firewall rules or sysctls.
#
# Environment: CONTAINER_KEEP_WORKDIR=1 keeps the work directory (dockerd log) for debugging.
set -euo pipefail
cd "$(dirname "$0")/.."
t_start=$(date +%s)

log() { printf '%s container: %s\n' "$(date -u +%H:%M:%S)" "$*"; }
fail() {
  printf 'container: FAIL: %s\n' "$*" >&2
  exit 1
}

if [ "$(id -u)" != 0 ]; then
  fail "needs root (dockerd, debootstrap)"
fi

# ---------------------------------------------------------------------------------------------
# 1. Packages
need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v curl >/dev/null 2>&1 || need+=(curl)
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || need+=(debian-archive-keyring)
if [ "${#need[@]}" -gt 0 ]; then
  log "installing ${need[*]} from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# The docker.io package brings its own client; any docker client on PATH talks to our socket.
docker_cli=$(command -v docker || true)
[ -n "$docker_cli" ] || fail "no docker client after installing docker.io"

# ---------------------------------------------------------------------------------------------
# 2. Private dockerd
work=$(mktemp -d /tmp/fabric-tco-container.XXXXXX)
sock="$work/docker.sock"
bridge="ftco$$"
bridge="${bridge:0:15}"
dockerd_pid=""
containers=()
export DOCKER_HOST="unix://$sock"

cleanup() {
  local rc=$?
  local t_clean
  t_clean=$(date +%s)
  set +e
  if [ -n "$dockerd_pid" ] && kill -0 "$dockerd_pid" 2>/dev/null; then
    if [ "$rc" != 0 ] && [ -f "$work/dockerd.log" ]; then
      echo "---- dockerd log (last 30 lines)" >&2
      tail -n 30 "$work/dockerd.log" >&2
    fi
    for c in "${containers[@]}"; do
      docker rm -f "$c" >/dev/null 2>&1
    done
    kill -TERM "$dockerd_pid" 2>/dev/null
    for _ in $(seq 1 100); do
      kill -0 "$dockerd_pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$dockerd_pid" 2>/dev/null; then
      echo "container: dockerd $dockerd_pid did not stop in 20 s; SIGKILL" >&2
      kill -KILL "$dockerd_pid" 2>/dev/null
      # its containerd (started by it, pidfile in our exec-root) would be left behind
      if [ -f "$work/exec/containerd/containerd.pid" ]; then
        kill -KILL "$(cat "$work/exec/containerd/containerd.pid")" 2>/dev/null
      fi
    fi
    wait "$dockerd_pid" 2>/dev/null
  fi
  # Anything still mounted under the work directory (overlay layers, netns) after a hard stop.
  awk -v w="$work" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null
  done
  ip link delete "$bridge" 2>/dev/null
  local t_rm
  t_rm=$(date +%s)
  if [ "${CONTAINER_KEEP_WORKDIR:-0}" = 1 ]; then
    echo "container: work directory kept: $work" >&2
  else
    rm -rf "$work"
  fi
  log "cleaned up in $(($(date +%s) - t_clean)) s (dockerd stop $((t_rm - t_clean)) s, work directory $(($(date +%s) - t_rm)) s); total $(($(date +%s) - t_start)) s"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Our own bridge (a private /24 picked from 172.31.x.0), so dockerd neither creates docker0 nor
# changes NAT/forwarding rules.
subnet_octet=$((200 + $$ % 50))
ip link add name "$bridge" type bridge
ip addr add "172.31.${subnet_octet}.1/24" dev "$bridge"
ip link set "$bridge" up

log "starting dockerd ($(dockerd --version))"
dockerd \
  --data-root "$work/data" \
  --exec-root "$work/exec" \
  --pidfile "$work/dockerd.pid" \
  --host "unix://$sock" \
  --storage-driver overlay2 \
  --bridge "$bridge" \
  --iptables=false \
  --ip-forward=false \
  --ip-masq=false \
  >"$work/dockerd.log" 2>&1 &
dockerd_pid=$!
for _ in $(seq 1 150); do
  docker version >/dev/null 2>&1 && break
  kill -0 "$dockerd_pid" 2>/dev/null || {
    tail -n 30 "$work/dockerd.log" >&2
    fail "dockerd exited at start-up"
  }
  sleep 0.2
done
docker version >/dev/null 2>&1 || fail "dockerd did not answer on $sock within 30 s"
storage=$(docker info --format '{{.Driver}}')
[ "$storage" = overlay2 ] || fail "storage driver is '$storage', not overlay2"

# Proxy settings of this machine (if any) reach the builds as Docker's predefined build args.
build_args=()
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  if [ -n "${!v:-}" ]; then build_args+=(--build-arg "$v=${!v}"); fi
done

# ---------------------------------------------------------------------------------------------
# 3. Base image stand-ins, named as the Dockerfile's FROM lines name them
mapfile -t froms < <(awk 'toupper($1) == "FROM" { print $2 }' Dockerfile)
rust_image=""
slim_image=""
for f in "${froms[@]}"; do
  case "$f" in
    rust:*-slim-bookworm) rust_image="$f" ;;
    debian:bookworm-slim) slim_image="$f" ;;
    *) fail "Dockerfile FROM '$f': no stand-in recipe for it here" ;;
  esac
done
if [ -z "$rust_image" ] || [ -z "$slim_image" ]; then
  fail "expected FROM rust:<version>-slim-bookworm and FROM debian:bookworm-slim in the Dockerfile"
fi

log "debian:bookworm-slim stand-in: debootstrap --variant=minbase bookworm"
t0=$(date +%s)
rootfs="$work/rootfs"
debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
  bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 || {
  tail -n 30 "$work/debootstrap.log" >&2
  fail "debootstrap failed"
}
# Apt sources as in the official image (deb822, main, with security and updates).
rm -f "$rootfs/etc/apt/sources.list"
cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# Slim settings as debuerreotype applies them to the official -slim images: dpkg path excludes,
# and the already-installed files they cover removed.
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
# This is the "slim" variant of the Debian base image.
# Many files which are normally unnecessary in containers are excluded,
# and this configuration file keeps them that way.
path-exclude /usr/share/doc/*
# we need to keep copyright files for legal reasons
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/man/*
EOF
find "$rootfs/usr/share/doc" -mindepth 1 \( -type f -o -type l \) ! -name copyright -delete
find "$rootfs/usr/share/locale" -mindepth 1 \( -type f -o -type l \) ! -name locale.alias -delete
for d in groff info linda lintian man; do
  [ -d "$rootfs/usr/share/$d" ] && find "$rootfs/usr/share/$d" -mindepth 1 -delete
done
find "$rootfs/usr/share/doc" "$rootfs/usr/share/locale" -mindepth 1 -type d -empty -delete
# debuerreotype's container apt/dpkg configuration (clean caches, no translations, no services).
cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
printf 'Acquire::Languages "none";\n' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
printf 'Acquire::GzipIndexes "true";\n' >"$rootfs/etc/apt/apt.conf.d/docker-gzip-indexes"
printf 'Apt::AutoRemove::SuggestsImportant "false";\n' >"$rootfs/etc/apt/apt.conf.d/docker-autoremove-suggests"
printf 'force-unsafe-io\n' >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
chmod 755 "$rootfs/usr/sbin/policy-rc.d"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin \
  "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* \
  "$rootfs"/var/cache/ldconfig/aux-cache "$rootfs"/tmp/* "$rootfs"/root/.bash_history
: >"$rootfs/etc/machine-id"
printf 'localhost\n' >"$rootfs/etc/hostname"
tar --numeric-owner --xattrs -C "$rootfs" -c . |
  docker import --change 'CMD ["bash"]' - "$slim_image" >/dev/null
rm -rf "$rootfs"
log "  $slim_image: $(docker image inspect -f '{{.Size}}' "$slim_image" | awk '{printf "%.1f MB", $1/1e6}') in $(($(date +%s) - t0)) s"

# Rust builder: the toolchain of this machine whose version matches the FROM tag.
want=${rust_image#rust:}
want=${want%-slim-bookworm}
toolchain_dir=""
command -v rustup >/dev/null 2>&1 || fail "rustup not found: the builder stand-in copies this machine's toolchain"
while read -r tc _; do
  [ -n "$tc" ] || continue
  rustc_bin=$(rustup which --toolchain "$tc" rustc 2>/dev/null) || continue
  ver=$("$rustc_bin" --version | awk '{print $2}')
  case "$ver" in
    "$want" | "$want".*)
      toolchain_dir=$(readlink -f "$(dirname "$(dirname "$rustc_bin")")")
      rust_version=$ver
      break
      ;;
  esac
done < <(rustup toolchain list)
[ -n "$toolchain_dir" ] || fail "no installed Rust toolchain with version $want (the Dockerfile's $rust_image)"

log "$rust_image stand-in: rustc $rust_version from $toolchain_dir"
t0=$(date +%s)
ctx="$work/rust-context"
tc_name="$rust_version-x86_64-unknown-linux-gnu"
mkdir -p "$ctx/rustup/toolchains/$tc_name" "$ctx/cargo/bin"
for part in bin lib libexec etc; do
  [ -e "$toolchain_dir/$part" ] || continue
  # Hard links when on the same file system (no copy of ~600 MB), a copy otherwise.
  cp -al "$toolchain_dir/$part" "$ctx/rustup/toolchains/$tc_name/" 2>/dev/null ||
    cp -a "$toolchain_dir/$part" "$ctx/rustup/toolchains/$tc_name/"
done
cp "$(command -v rustup)" "$ctx/cargo/bin/rustup"
for t in cargo cargo-clippy cargo-fmt clippy-driver rustc rustdoc rustfmt rust-gdb rust-gdbgui rust-lldb; do
  ln -s rustup "$ctx/cargo/bin/$t"
done
printf 'version = "12"\ndefault_toolchain = "%s"\nprofile = "minimal"\nauto_self_update = "disable"\n\n[overrides]\n' \
  "$tc_name" >"$ctx/rustup/settings.toml"
# The CA bundle this machine's package clients use (cargo, pip, curl, apt over https).
cp /etc/ssl/certs/ca-certificates.crt "$ctx/host-ca-certificates.crt"
cat >"$ctx/Dockerfile" <<EOF
FROM $slim_image
ENV RUSTUP_HOME=/usr/local/rustup \\
    CARGO_HOME=/usr/local/cargo \\
    PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
    RUST_VERSION=$rust_version
RUN apt-get update \\
    && apt-get install -y --no-install-recommends ca-certificates gcc libc6-dev \\
    && rm -rf /var/lib/apt/lists/*
COPY host-ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY rustup /usr/local/rustup
COPY cargo /usr/local/cargo
RUN rustup --version && cargo --version && rustc --version
EOF
DOCKER_BUILDKIT=0 docker build -q --network host "${build_args[@]}" -t "$rust_image" "$ctx" >"$work/rust-build.log" 2>&1 || {
  tail -n 30 "$work/rust-build.log" >&2
  fail "building the $rust_image stand-in failed"
}
rm -rf "$ctx"
log "  $rust_image: $(docker image inspect -f '{{.Size}}' "$rust_image" | awk '{printf "%.0f MB", $1/1e6}') in $(($(date +%s) - t0)) s"

# ---------------------------------------------------------------------------------------------
# 4. The project's Dockerfile, unchanged
image="fabric-tco:ci"
dockerfile_sum=$(sha256sum Dockerfile)
log "docker build (classic builder) of the project's Dockerfile"
t0=$(date +%s)
DOCKER_BUILDKIT=0 docker build --network host "${build_args[@]}" -t "$image" . >"$work/build.log" 2>&1 || {
  tail -n 60 "$work/build.log" >&2
  fail "docker build failed"
}
build_secs=$(($(date +%s) - t0))
[ "$dockerfile_sum" = "$(sha256sum Dockerfile)" ] || fail "the Dockerfile changed during the build"
grep -E '^Step [0-9]+/' "$work/build.log" | sed 's/^/  /'
image_bytes=$(docker image inspect -f '{{.Size}}' "$image")
image_mb=$(awk -v b="$image_bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
log "build time: ${build_secs} s; image size: ${image_mb} MB (${image_bytes} bytes)"
docker history --format '  {{.Size}}\t{{.CreatedBy}}' "$image" | cut -c1-120
# The machine's CA bundle went into the builder stand-in only; the final image has Debian's own.
final_cas=$(docker run --rm --entrypoint /bin/sh "$image" -c 'cat /etc/ssl/certs/ca-certificates.crt' | grep -c BEGIN)
host_cas=$(grep -c BEGIN /etc/ssl/certs/ca-certificates.crt)
echo "  CA certificates: final image ${final_cas} (Debian's ca-certificates), builder ${host_cas} (this machine's bundle)"
[ "$final_cas" -gt 0 ] || fail "the final image has no CA bundle (https catalog URLs could not verify)"
if docker run --rm --entrypoint /bin/sh "$image" -c 'command -v curl' >/dev/null 2>&1; then
  fail "curl is in the final image"
fi

# ---------------------------------------------------------------------------------------------
# 5. Run and check
ip_of() { docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$1"; }

# Waits for Docker's health status of container $1 to become healthy (fails on unhealthy).
wait_healthy() {
  local c=$1 limit=$2 status=""
  for _ in $(seq 1 "$limit"); do
    status=$(docker inspect -f '{{.State.Health.Status}}' "$c")
    case "$status" in
      healthy) return 0 ;;
      unhealthy)
        docker inspect -f '{{json .State.Health}}' "$c" >&2
        fail "$c: health status unhealthy"
        ;;
    esac
    docker inspect -f '{{.State.Running}}' "$c" | grep -q true || {
      docker logs "$c" >&2
      fail "$c exited"
    }
    sleep 1
  done
  docker inspect -f '{{json .State.Health}}' "$c" >&2
  fail "$c: health status '$status' after ${limit} s"
}

start=$(date +%s)
c_default="fabric-tco-ci-default-$$"
c_port="fabric-tco-ci-9090-$$"
containers+=("$c_default" "$c_port")
docker run -d --name "$c_default" "$image" >/dev/null
docker run -d --name "$c_port" -e FABRIC_TCO_BIND=0.0.0.0:9090 "$image" >/dev/null

ip_default=$(ip_of "$c_default")
ip_port=$(ip_of "$c_port")
if [ -z "$ip_default" ] || [ -z "$ip_port" ]; then fail "no bridge address for the containers"; fi
base="http://$ip_default:8080"
for _ in $(seq 1 100); do
  curl -fsS -m 2 "$base/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
log "check: GET /healthz"
health=$(curl -fsS -m 5 "$base/healthz") || fail "GET $base/healthz failed"
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["status"]=="ok", d' "$health" ||
  fail "/healthz answered $health"
echo "  $health"

log "check: POST /v1/plans"
plan=$(curl -fsS -m 30 -X POST "$base/v1/plans" -H 'content-type: application/json' \
  -d '{"gpus": 1024, "economics": {"years": 5}}') || fail "POST /v1/plans failed"
python3 - "$plan" <<'EOF' || fail "POST /v1/plans: unexpected answer"
import json, sys
plan = json.loads(sys.argv[1])
assert plan.get("plan_id"), "no plan_id"
assert plan.get("inputs", {}).get("gpus") == 1024, plan.get("inputs")
print("  plan_id", plan["plan_id"], "keys:", ", ".join(sorted(plan)[:12]))
EOF

log "check: the process runs as uid 10001, gid 10001"
pid=$(docker inspect -f '{{.State.Pid}}' "$c_default")
uids=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$pid/status")
gids=$(awk '/^Gid:/ { print $2, $3, $4, $5 }' "/proc/$pid/status")
groups=$(awk '/^Groups:/ { $1 = ""; print }' "/proc/$pid/status" | xargs)
echo "  Uid: $uids; Gid: $gids; Groups: ${groups:-none}"
[ "$uids" = "10001 10001 10001 10001" ] || fail "uid is '$uids', not 10001"
[ "$gids" = "10001 10001 10001 10001" ] || fail "gid is '$gids', not 10001"
for g in $groups; do [ "$g" = 10001 ] || fail "supplementary group $g"; done
[ "$(docker exec "$c_default" id -u):$(docker exec "$c_default" id -g)" = "10001:10001" ] ||
  fail "docker exec id: $(docker exec "$c_default" id)"

log "check: FABRIC_TCO_BIND=0.0.0.0:9090 serves on 9090"
curl -fsS -m 5 "http://$ip_port:9090/healthz" >/dev/null || fail "the 9090 container does not serve /healthz"

# The image's own HEALTHCHECK (interval 30 s, start period 5 s): the first probe runs ~30 s after
# start; both containers are waited for together.
log "check: Docker health status becomes healthy (default bind, and 0.0.0.0:9090)"
wait_healthy "$c_default" 90
wait_healthy "$c_port" 90
echo "  both healthy after $(($(date +%s) - start)) s"

log "check: docker stop exits 0 within the grace period"
grace=10
t0=$(date +%s.%N)
docker stop -t "$grace" "$c_default" >/dev/null || fail "docker stop failed"
stop_secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
code=$(docker inspect -f '{{.State.ExitCode}}' "$c_default")
echo "  stopped in ${stop_secs} s, exit code $code"
[ "$code" = 0 ] || fail "exit code after docker stop is $code, not 0"
awk -v s="$stop_secs" -v g="$grace" 'BEGIN { exit !(s < g) }' || fail "stop took ${stop_secs} s (grace ${grace} s)"

log "check: logs are JSON lines"
docker logs "$c_default" >"$work/logs.txt" 2>&1
python3 - "$work/logs.txt" <<'EOF' || fail "the container's log lines are not all JSON"
import json, sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if l.strip()]
assert lines, "no log lines"
for l in lines:
    obj = json.loads(l)
    assert isinstance(obj, dict), l
print(f"  {len(lines)} lines, all JSON objects; first: {lines[0][:140]}")
EOF
docker stop -t "$grace" "$c_port" >/dev/null

log "passed: build ${build_secs} s, image ${image_mb} MB, stop ${stop_secs} s, script total $(($(date +%s) - t_start)) s"
