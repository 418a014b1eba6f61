#!/bin/bash
# Stand-in for the official postgres image's entrypoint: the same environment variables
# (POSTGRES_PASSWORD[_FILE], POSTGRES_USER, POSTGRES_DB, POSTGRES_HOST_AUTH_METHOD, PGDATA),
# /docker-entrypoint-initdb.d scripts on first start, listening on 5432 on every address.
set -euo pipefail
if [ $# -eq 0 ] || [ "${1#-}" != "$1" ]; then set -- postgres "$@"; fi
if [ "$1" != postgres ]; then exec "$@"; fi
shift

as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE"); fi
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
    echo 'Error: Database is uninitialized and superuser password is not specified.' >&2
    echo '       You must specify POSTGRES_PASSWORD to a non-empty value for the superuser.' >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s' "${POSTGRES_PASSWORD:-}" >"$pwfile"
  chown postgres "$pwfile"
  as_postgres initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" --auth-local=trust --auth-host="$auth" >/dev/null
  rm -f "$pwfile"
  echo "host all all all $auth" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.auto.conf"
  as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$db" != postgres ]; then as_postgres psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -qc "CREATE DATABASE \"$db\""; fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; . "$f" ;;
      *.sql) echo "running $f"; as_postgres psql -v ON_ERROR_STOP=1 -U "$user" -d "$db" -f "$f" ;;
    esac
  done 2>/dev/null || true
  as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo 'PostgreSQL init process complete; ready for start up.'
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" "$@"
