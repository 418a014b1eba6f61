#!/bin/bash
# PID 1 of the test server: its own Docker engine (using the offline registry mirror) and sshd.
set -euo pipefail

: "${DA_MIRROR:?the registry mirror address, host:port}"
: "${DA_AUTHORIZED_KEY:?the public key allowed to log in}"
: "${DA_SSH_PORT:=2222}"
: "${DA_USER:=deploy}"

# Not started with --privileged: make the cgroup file systems writable for the engine's containers.
for d in /sys/fs/cgroup /sys/fs/cgroup/*; do
  if mountpoint -q "$d"; then mount -o remount,bind,rw "$d" 2>/dev/null || true; fi
done

mkdir -p /etc/docker
# The engine's own networks stay out of the outer bridge's 172.17.0.0/16.
cat >/etc/docker/daemon.json <<JSON
{
  "registry-mirrors": ["http://$DA_MIRROR"],
  "insecure-registries": ["$DA_MIRROR"],
  "bip": "10.213.0.1/24",
  "default-address-pools": [{"base": "10.214.0.0/16", "size": 24}],
  "storage-driver": "overlay2"
}
JSON
dockerd >/var/log/dockerd.log 2>&1 &
cron

id "$DA_USER" >/dev/null 2>&1 || useradd -m -s /bin/bash -G docker,sudo "$DA_USER"
echo "$DA_USER ALL=(ALL) NOPASSWD:ALL" >/etc/sudoers.d/da-test-server
home=$(getent passwd "$DA_USER" | cut -d: -f6)
install -d -m 700 -o "$DA_USER" -g "$DA_USER" "$home/.ssh"
printf '%s\n' "$DA_AUTHORIZED_KEY" >"$home/.ssh/authorized_keys"
chown "$DA_USER:$DA_USER" "$home/.ssh/authorized_keys"
chmod 600 "$home/.ssh/authorized_keys"

ssh-keygen -A >/dev/null
mkdir -p /run/sshd
exec /usr/sbin/sshd -D -e -p "$DA_SSH_PORT" -o PasswordAuthentication=no -o PermitRootLogin=no
