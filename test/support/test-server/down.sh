#!/usr/bin/env bash
# `npm run test-server:down`: removes what test-server:up started (containers, the engine's volume,
# the key and address it wrote) under DA_TEST_SERVER_PREFIX, nothing of another prefix. Built images stay
# cached; DA_TEST_SERVER_IMAGES=remove removes them too (shared by every prefix: see up.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${DA_TEST_SERVER_PREFIX:-da-test-server}
images=${DA_TEST_SERVER_IMAGE_PREFIX:-da-test-server}
state=${DA_TEST_SERVER_DIR:-$here/../../../.test-server}
docker rm -f -v "$prefix-host" "$prefix-registry" "$prefix-backup" >/dev/null 2>&1 || true
docker volume rm "$prefix-docker" >/dev/null 2>&1 || true
rm -rf "$state"
if [ "${DA_TEST_SERVER_IMAGES:-}" = remove ]; then
  docker images --format '{{.Repository}}:{{.Tag}}' | grep -E "^$images-" | xargs -r docker rmi >/dev/null
fi
echo "test-server: removed" >&2
