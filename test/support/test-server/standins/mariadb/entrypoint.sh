#!/bin/bash
# Stand-in for the official mariadb image's entrypoint: MARIADB_ROOT_PASSWORD (or MYSQL_ROOT_PASSWORD, and
# _FILE), MARIADB_ALLOW_EMPTY_ROOT_PASSWORD, MARIADB_DATABASE, MARIADB_USER, MARIADB_PASSWORD. The first
# start initialises /var/lib/mysql with a server on the socket only (no TCP, as the official image: a
# client over TCP is answered once it is ready), runs /docker-entrypoint-initdb.d, then the server
# listens on 3306 on every address. root is root@localhost and root@'%', with that password.
set -euo pipefail
if [ $# -eq 0 ] || [ "${1#-}" != "$1" ]; then set -- mariadbd "$@"; fi
if [ "$1" != mariadbd ] && [ "$1" != mysqld ]; then exec "$@"; fi
shift

value() { local file="${1}_FILE"; if [ -n "${!file:-}" ]; then cat "${!file}"; else printf '%s' "${!1:-}"; fi; }
root_pw=$(value MARIADB_ROOT_PASSWORD); [ -n "$root_pw" ] || root_pw=$(value MYSQL_ROOT_PASSWORD)
db=${MARIADB_DATABASE:-${MYSQL_DATABASE:-}}
user=${MARIADB_USER:-${MYSQL_USER:-}}
user_pw=$(value MARIADB_PASSWORD); [ -n "$user_pw" ] || user_pw=$(value MYSQL_PASSWORD)
datadir=/var/lib/mysql
socket=/run/mysqld/mysqld.sock
mkdir -p "$datadir" /run/mysqld
chown -R mysql:mysql "$datadir" /run/mysqld

# A string literal of SQL: backslashes and quotes escaped.
lit() { local s=${1//\\/\\\\}; printf "'%s'" "${s//\'/\\\'}"; }

if [ ! -d "$datadir/mysql" ]; then
  if [ -z "$root_pw" ] && [ -z "${MARIADB_ALLOW_EMPTY_ROOT_PASSWORD:-}" ]; then
    echo 'error: database is uninitialized and password option is not specified' >&2
    echo '  You need to specify one of MARIADB_ROOT_PASSWORD, MARIADB_ALLOW_EMPTY_ROOT_PASSWORD' >&2
    exit 1
  fi
  mariadb-install-db --user=mysql --datadir="$datadir" --auth-root-authentication-method=normal --skip-test-db >/dev/null
  mariadbd --user=mysql --datadir="$datadir" --skip-networking --socket="$socket" &
  pid=$!
  for _ in $(seq 1 60); do mariadb-admin --socket="$socket" ping >/dev/null 2>&1 && break; sleep 1; done
  {
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY $(lit "$root_pw");"
    echo "CREATE USER 'root'@'%' IDENTIFIED BY $(lit "$root_pw");"
    echo "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
    if [ -n "$db" ]; then echo "CREATE DATABASE IF NOT EXISTS \`${db//\`/\`\`}\`;"; fi
    if [ -n "$user" ] && [ -n "$user_pw" ]; then
      echo "CREATE USER $(lit "$user")@'%' IDENTIFIED BY $(lit "$user_pw");"
      if [ -n "$db" ]; then echo "GRANT ALL ON \`${db//\`/\`\`}\`.* TO $(lit "$user")@'%';"; fi
    fi
  } | mariadb --socket="$socket" -uroot
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; . "$f" ;;
      *.sql) echo "running $f"; mariadb --socket="$socket" -uroot -p"$root_pw" ${db:+"$db"} < "$f" ;;
    esac
  done
  kill "$pid"
  wait "$pid" || true
  echo 'MariaDB init process done. Ready for start up.'
fi
exec mariadbd --user=mysql --datadir="$datadir" --socket="$socket" --bind-address=0.0.0.0 --port=3306 "$@"
