#!/usr/bin/env bash
# Builds the local stand-ins of the third-party images where no container registry answers, from
# Debian's package mirror and this machine's Node:
#   pasar-local/debian:bookworm   debootstrap --variant=minbase bookworm, then docker import
#   pasar-local/node:20           that + this machine's node (>= 20) and npm   (NODE_IMAGE)
#   pasar-local/postgres:15       Debian's postgresql-15                       (POSTGRES_IMAGE)
#   pasar-local/nats:2.9          Debian's nats-server, JetStream              (NATS_IMAGE)
#   pasar-local/mailcatcher       SMTP + Mailpit's message API (node)          (MAIL_IMAGE)
# Usage (as root: debootstrap needs it): deploy/compose/offline/build.sh [image ...]
# With no argument it builds every image that is not there yet (REBUILD=1: all of them). Extra CA
# certificates for a TLS-intercepting network: put PEM files in deploy/compose/certs/ (see its README).
# Then run compose with the variables this prints (or let `npm run compose:smoke` do all of it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
# Debian's docker.io client where present (it speaks its engine's API version)
docker="${DOCKER:-$(command -v /usr/bin/docker || echo docker)}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

have() { "$docker" image inspect "$1" >/dev/null 2>&1 && [ -z "${REBUILD:-}" ]; }
context() { # a build context: this folder's files plus the extra CA certificates
  local dir="$work/ctx-$1"
  mkdir -p "$dir/certs"
  cp "$here"/*.Dockerfile "$here"/*.sh "$here"/*.mjs "$dir/"
  cp "$repo"/deploy/compose/certs/*.pem "$dir/certs/" 2>/dev/null || true
  echo "$dir"
}

build_debian() {
  have pasar-local/debian:bookworm && return
  command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap; }
  echo "offline: debootstrap bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log"; exit 1; }
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" > "$work/rootfs/etc/apt/sources.list"
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | "$docker" import -c 'CMD ["bash"]' - pasar-local/debian:bookworm >/dev/null
  rm -rf "$work/rootfs"
}

build_node() {
  have pasar-local/node:20 && return
  build_debian
  local node major npm_dir dir
  node="$(command -v node)"
  major="$("$node" -p 'process.versions.node.split(".")[0]')"
  [ "$major" -ge 20 ] || { echo "offline: node $major on this machine; the stand-in needs >= 20" >&2; exit 1; }
  npm_dir="$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)"
  dir="$(context node)"
  cp "$(readlink -f "$node")" "$dir/node"
  cp -r "$npm_dir" "$dir/npm"
  "$docker" build -q -f "$dir/node.Dockerfile" -t pasar-local/node:20 "$dir" >/dev/null
}

build_postgres() {
  have pasar-local/postgres:15 && return
  build_debian
  local dir; dir="$(context postgres)"
  "$docker" build -q -f "$dir/postgres.Dockerfile" -t pasar-local/postgres:15 "$dir" >/dev/null
}

build_nats() {
  have pasar-local/nats:2.9 && return
  build_debian
  local dir; dir="$(context nats)"
  "$docker" build -q -f "$dir/nats.Dockerfile" -t pasar-local/nats:2.9 "$dir" >/dev/null
}

build_mail() {
  have pasar-local/mailcatcher && return
  build_node
  local dir; dir="$(context mail)"
  "$docker" build -q -f "$dir/mailcatcher.Dockerfile" -t pasar-local/mailcatcher "$dir" >/dev/null
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(node postgres nats mail)
for target in "${targets[@]}"; do
  case "$target" in
    debian) build_debian ;;
    node) build_node ;;
    postgres) build_postgres ;;
    nats) build_nats ;;
    mail) build_mail ;;
    *) echo "offline: unknown image $target (debian, node, postgres, nats, mail)" >&2; exit 2 ;;
  esac
  echo "offline: $target ready"
done
cat <<VARS
NODE_IMAGE=pasar-local/node:20
POSTGRES_IMAGE=pasar-local/postgres:15
NATS_IMAGE=pasar-local/nats:2.9
MAIL_IMAGE=pasar-local/mailcatcher
VARS
