#!/usr/bin/env bash
# `backup-host.sh up|down`: a second disposable SSH host, the destination of the test server's off-server
# backups (restic over SFTP). No privileges and no engine: the test server's own image (it has sshd) with
# a user `restic` owning /srv/restic, its key in the state folder. `up` prints one line of JSON:
# {"host","port","user","private_key_file","path"} (also in backup.json); `test-server:up` starts it and
# `test-server:down` removes it, and it can be (re)started alone without touching the test server.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${DA_TEST_SERVER_PREFIX:-da-test-server}
images=${DA_TEST_SERVER_IMAGE_PREFIX:-da-test-server}
state=${DA_TEST_SERVER_DIR:-$here/../../../.test-server}
name="$prefix-backup"
port=2222
user=restic
log() { echo "test-server: $*" >&2; }

if [ "${1:-up}" = down ]; then
  docker rm -f -v "$name" >/dev/null 2>&1 || true
  rm -f "$state/backup.json" "$state/backup_ed25519" "$state/backup_ed25519.pub"
  exit 0
fi

hash_of() { (cd "$here" && find "$@" -type f | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12); }
image="$images-host:$(hash_of host/packages)"
docker image inspect "$image" >/dev/null 2>&1 || { log "$image is missing: run test-server:up first"; exit 1; }
mkdir -p "$state"
state=$(cd "$state" && pwd)
key="$state/backup_ed25519"
[ -f "$key" ] || ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$key"

docker rm -f -v "$name" >/dev/null 2>&1 || true
log "starting the backup host"
docker run -d --name "$name" --label da-test-server=1 --hostname "$name" -e "KEY=$(cat "$key.pub")" "$image" bash -c "
  set -e
  useradd -m -s /bin/bash $user
  install -d -m 700 -o $user -g $user /home/$user/.ssh /srv/restic
  printf '%s\n' \"\$KEY\" > /home/$user/.ssh/authorized_keys
  chown $user:$user /home/$user/.ssh/authorized_keys; chmod 600 /home/$user/.ssh/authorized_keys
  ssh-keygen -A >/dev/null; mkdir -p /run/sshd
  exec /usr/sbin/sshd -D -e -p $port -o PasswordAuthentication=no -o PermitRootLogin=no" >/dev/null
host=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$name")
for i in $(seq 1 60); do
  if ssh -i "$key" -p "$port" -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=3 "$user@$host" true 2>/dev/null; then break; fi
  if [ "$i" = 60 ]; then log "the backup host did not answer over SSH"; docker logs "$name" >&2; exit 1; fi
  sleep 0.5
done
log "backup host ready: sftp -i $key -P $port $user@$host:/srv/restic"
printf '{"host":"%s","port":%s,"user":"%s","private_key_file":"%s","path":"/srv/restic"}\n' "$host" "$port" "$user" "$key" | tee "$state/backup.json"
