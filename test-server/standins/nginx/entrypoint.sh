#!/bin/bash
# Stand-in for the official nginx image's entrypoint: /etc/nginx/templates/*.template are rendered
# with envsubst into /etc/nginx/conf.d, then the command runs.
set -euo pipefail
if [ "${1:-}" = nginx ] && [ -d /etc/nginx/templates ]; then
  vars=$(printf '${%s} ' $(env | cut -d= -f1))
  for t in /etc/nginx/templates/*.template; do
    [ -f "$t" ] || continue
    out=/etc/nginx/conf.d/$(basename "${t%.template}")
    envsubst "$vars" <"$t" >"$out"
  done
fi
exec "$@"
