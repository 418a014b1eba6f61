#!/bin/bash
# Stand-in for the official image's healthcheck.sh: --connect (the server answers over TCP, which it does
# only once its first-start initialisation is done) and --innodb_initialized (it answers on its socket).
set -euo pipefail
for arg in "$@"; do
  case "$arg" in
    --connect) mariadb-admin --protocol=tcp -h 127.0.0.1 -P 3306 ping >/dev/null 2>&1 ;;
    --innodb_initialized) mariadb-admin --socket=/run/mysqld/mysqld.sock ping >/dev/null 2>&1 ;;
  esac
done
