#!/usr/bin/env bash
# Builds the sandbox toolbox image offline from Debian packages: mmdebstrap makes a bookworm root
# filesystem with every package of sandbox/toolbox-packages.txt and a `sandbox` user (uid/gid 1000),
# and `docker import` turns it into an image. Import keeps no metadata, so USER, WORKDIR, ENV and CMD
# are given with --change. Needs root (or mmdebstrap's unshare mode), mmdebstrap and a Docker engine.
#
#   npm run sandbox:image                     # tags devops-agents-toolbox:bookworm
#   SANDBOX_DOCKER_IMAGE=registry.example.com/toolbox:1 npm run sandbox:image
#   FORCE=1 npm run sandbox:image             # rebuild even when the tag exists
set -euo pipefail
cd "$(dirname "$0")/.."

tag=${SANDBOX_DOCKER_IMAGE:-devops-agents-toolbox:bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

if [ -z "${FORCE:-}" ] && docker image inspect "$tag" >/dev/null 2>&1; then
  echo "Sandbox image $tag exists (FORCE=1 to rebuild)"
  exit 0
fi

packages=$(sed -e 's/#.*//' sandbox/toolbox-packages.txt | awk 'NF { print $1 }' | paste -sd, -)
started=$(date +%s)
echo "Building sandbox image $tag from Debian bookworm: ${packages//,/ }"

# The daemon halves of docker.io (dockerd, containerd, runc) never run in a sandbox: only the CLI stays.
# /home/sandbox leads to /tmp/.home, which the driver points at the project's home on every start, so
# that ssh (which reads the passwd entry, not $HOME) finds ~/.ssh where $HOME has it.
mmdebstrap --variant=apt --include="$packages" \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook='chroot "$1" groupadd --gid 1000 sandbox' \
  --customize-hook='chroot "$1" useradd --uid 1000 --gid 1000 --no-create-home --home-dir /home/sandbox --shell /bin/bash sandbox' \
  --customize-hook='mkdir -p "$1/home" && ln -sfn /tmp/.home "$1/home/sandbox"' \
  --customize-hook='rm -f "$1"/usr/sbin/dockerd "$1"/usr/bin/containerd* "$1"/usr/bin/ctr "$1"/usr/sbin/runc "$1"/usr/bin/docker-proxy' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
  bookworm - \
  "deb $mirror bookworm main" \
  "deb $mirror bookworm-updates main" \
  "deb $security bookworm-security main" |
  docker import \
    --change 'USER 1000:1000' \
    --change 'WORKDIR /tmp' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["bash"]' \
    --message "DevOps Agents sandbox toolbox ($packages)" \
    - "$tag" >/dev/null

size=$(docker image inspect "$tag" --format '{{.Size}}')
echo "Built $tag in $(( $(date +%s) - started )) s, $(( size / 1000000 )) MB"
