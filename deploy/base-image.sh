#!/usr/bin/env bash
# Makes the base image every image of the stack starts from, locally and without any registry:
# Debian bookworm (debootstrap from the Debian mirror, the one network source besides npm), the
# host's Node.js (the same major version our code is built and tested with; Node 20 comes from the
# NodeSource package here, which Debian does not carry), npm, and what the platform runs at run time
# (iptables for the docker executor's firewall, ca-certificates). Imported with `docker import`.
#
# Usage: deploy/base-image.sh [image]    (default: $HINDSIGHT_BASE_IMAGE, else hindsight-base:bookworm-node<major>)
# Does nothing when the image exists; HINDSIGHT_BASE_REBUILD=1 makes it again.
# Settings: DEBIAN_MIRROR (default http://deb.debian.org/debian), NODE_BIN (default: `node` on PATH),
# NPM_DIR (default: the npm package beside that node), NODE_HEADERS (default: the include/node folder
# beside that node; native addons are compiled against it, since node-gyp cannot download headers here),
# EXTRA_CA_DIR (default /usr/local/share/ca-certificates:
# the host's own certificate authorities, such as a TLS-inspecting proxy's, are trusted in the image too).
set -euo pipefail

node_bin="$(readlink -f "${NODE_BIN:-$(command -v node)}")"
node_major="$("$node_bin" -p 'process.versions.node.split(".")[0]')"
image="${1:-${HINDSIGHT_BASE_IMAGE:-hindsight-base:bookworm-node${node_major}}}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

if [ "${HINDSIGHT_BASE_REBUILD:-0}" != 1 ] && docker image inspect "$image" >/dev/null 2>&1; then
  echo "base image $image exists"
  exit 0
fi

note() { printf 'base-image: %s\n' "$*" >&2; }
[ "$(id -u)" = 0 ] || { note 'run as root (debootstrap and chroot need it)'; exit 1; }
command -v debootstrap >/dev/null || { note 'debootstrap is missing: apt-get install debootstrap'; exit 1; }
npm_dir="${NPM_DIR:-$(readlink -f "$(dirname "$node_bin")/../lib/node_modules/npm")}"
[ -f "$npm_dir/bin/npm-cli.js" ] || { note "no npm at $npm_dir (set NPM_DIR)"; exit 1; }
headers="${NODE_HEADERS:-$(readlink -f "$(dirname "$node_bin")/../include/node")}"
[ -f "$headers/node_version.h" ] || { note "no node headers at $headers (set NODE_HEADERS)"; exit 1; }

work="$(mktemp -d /var/tmp/hindsight-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

note "debootstrap bookworm from $mirror"
debootstrap --variant=minbase --include=ca-certificates,iptables,procps \
  bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}

note "node $("$node_bin" --version) from $node_bin, npm $(node "$npm_dir/bin/npm-cli.js" --version) from $npm_dir"
install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
mkdir -p "$rootfs/usr/local/include"
cp -a "$headers" "$rootfs/usr/local/include/node"
# Certificate authorities the host trusts beyond Debian's (a proxy's), so npm and S3 clients reach out.
extra_ca="${EXTRA_CA_DIR:-/usr/local/share/ca-certificates}"
if compgen -G "$extra_ca/*.crt" >/dev/null; then
  note "trusting the certificate authorities in $extra_ca"
  cp "$extra_ca"/*.crt "$rootfs/usr/local/share/ca-certificates/"
  chroot "$rootfs" update-ca-certificates >/dev/null
fi

# The node binary must run on this rootfs's own libraries, not only on the host's.
chroot "$rootfs" /usr/local/bin/node -e 'require("node:zlib"); require("node:crypto")' || {
  note 'the node binary does not run on the Debian rootfs'
  exit 1
}

# An image keeps no package lists or caches; `apt-get update` in a later stage fetches fresh ones.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
  "$rootfs"/var/log/*.log "$rootfs"/tmp/* "$rootfs"/dev/*

note "importing $image"
tar --numeric-owner -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt npm_config_nodedir=/usr/local' \
  --change 'CMD ["bash"]' \
  --message "Debian bookworm (debootstrap) with node $("$node_bin" --version)" \
  - "$image" >/dev/null
echo "base image $image made"
