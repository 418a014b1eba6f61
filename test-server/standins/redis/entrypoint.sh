#!/bin/bash
# Stand-in for the official redis image's entrypoint: arguments starting with '-' go to
# redis-server, which runs as the redis user without protected mode (as the official image builds it).
set -euo pipefail
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" = redis-server ]; then
  shift
  chown -R redis:redis . 2>/dev/null || true
  exec setpriv --reuid=redis --regid=redis --init-groups redis-server --protected-mode no --dir /data "$@"
fi
exec "$@"
