#!/usr/bin/env bash
# `npm run test-server:up`: a disposable server to deploy to, offline. It starts
#  - <prefix>-registry: Debian's docker-registry holding stand-in images (built from Debian packages)
#    under the names the planner's catalogue pins (standins.json), and
#  - <prefix>-host: a privileged container running sshd (port 2222) and its own Docker engine, which
#    uses the registry as its `registry-mirrors`, so `docker-compose pull && up -d` works unchanged, and
#  - <prefix>-backup: a plain SSH host taking the test server's backups over SFTP (backup-host.sh).
# Prints one line of JSON: {"host","port","user","private_key_file"}. Everything else goes to stderr.
# Images are cached by a hash of what they are built from; `test-server:down` removes what this starts.
# DA_TEST_SERVER_PREFIX names the containers and the engine's volume (one prefix per server, so two runs
# side by side each have their own, as .ci/run does); the images are named by DA_TEST_SERVER_IMAGE_PREFIX,
# shared by every prefix: their tags are hashes of what they are built from, so no run's build changes
# another's, and a new prefix does not build them all again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${DA_TEST_SERVER_PREFIX:-da-test-server}
images=${DA_TEST_SERVER_IMAGE_PREFIX:-da-test-server}
state=${DA_TEST_SERVER_DIR:-$here/../../../.test-server}
suite=${DA_TEST_SERVER_SUITE:-bookworm}
ssh_port=2222
user=deploy
log() { echo "test-server: $*" >&2; }

# `docker build` quietly: its output only when it fails.
build() { local out; out=$(DOCKER_BUILDKIT=0 docker build -q "$@" 2>&1) || { printf '%s\n' "$out" >&2; return 1; }; }
hash_of() { (cd "$here" && find "$@" -type f | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12); }

# A root file system from Debian packages, imported as an image (skipped when the tag exists).
rootfs_image() {
  local name=$1 tag=$2 packages=$3; shift 3
  if docker image inspect "$name:$tag" >/dev/null 2>&1; then return; fi
  log "building $name:$tag from Debian packages (mmdebstrap; a few minutes the first time)"
  mmdebstrap --variant=apt --quiet --include="$(paste -sd, "$here/$packages")" \
    --customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*' \
    "$suite" - | docker import "$@" - "$name:$tag" >/dev/null
}

# Capabilities this process lacks (its bounding set), which a container cannot be given either.
missing_caps() {
  local bnd names i=0
  bnd=$((16#$(awk '/^CapBnd/{print $2}' /proc/self/status)))
  names=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE NET_BIND_SERVICE
    NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN
    SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE
    MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ)
  for i in "${!names[@]}"; do (( (bnd >> i) & 1 )) || echo "${names[$i]}"; done
}

mkdir -p "$state"
state=$(cd "$state" && pwd)

host_tag=$(hash_of host/packages)
init_tag=$host_tag-$(hash_of host/init.sh)
base_tag=$(hash_of standins/packages)
rootfs_image "$images-host" "$host_tag" host/packages \
  --change 'CMD ["/usr/local/sbin/da-test-server-init"]'
if ! docker image inspect "$images-host-init:$init_tag" >/dev/null 2>&1; then
  printf 'FROM %s\nCOPY init.sh /usr/local/sbin/da-test-server-init\n' "$images-host:$host_tag" |
    build -t "$images-host-init:$init_tag" -f - "$here/host"
fi
rootfs_image "$images-standin-base" "$base_tag" standins/packages

# Stand-ins: one small layer each on the shared base, so the server's engine pulls the base once.
declare -A standins=()
while IFS=' ' read -r image dir; do standins[$image]=$dir; done < <(
  node -e 'const s=require(process.argv[1]).images; for (const [i,d] of Object.entries(s)) console.log(i+" "+d)' "$here/standins/standins.json")
for image in "${!standins[@]}"; do
  dir=${standins[$image]}
  tag=$base_tag-$(hash_of "standins/$dir")
  local_name="$images-standin-$dir:$tag"
  if ! docker image inspect "$local_name" >/dev/null 2>&1; then
    log "building stand-in $image"
    build --build-arg "BASE=$images-standin-base:$base_tag" -t "$local_name" "$here/standins/$dir"
  fi
  standins[$image]=$local_name
done

docker rm -f "$prefix-registry" "$prefix-host" >/dev/null 2>&1 || true
docker volume rm "$prefix-docker" >/dev/null 2>&1 || true

log "starting the registry mirror"
docker run -d --name "$prefix-registry" --label da-test-server=1 -p 127.0.0.1::5000 \
  -v "$here/registry.yml:/etc/docker/registry/da-test-server.yml:ro" \
  "$images-standin-base:$base_tag" docker-registry serve /etc/docker/registry/da-test-server.yml >/dev/null
reg_local=$(docker port "$prefix-registry" 5000/tcp | head -n 1)
reg_ip=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$prefix-registry")
for _ in $(seq 1 50); do curl -fsS "http://$reg_local/v2/" >/dev/null 2>&1 && break; sleep 0.2; done
# Official images live under library/ on Docker Hub; the mirror serves them under the same names.
for image in "${!standins[@]}"; do
  case "$image" in */*) path=$image ;; *) path=library/$image ;; esac
  docker tag "${standins[$image]}" "$reg_local/$path"
  docker push -q "$reg_local/$path" >/dev/null
  docker rmi "$reg_local/$path" >/dev/null
done

key="$state/id_ed25519"
[ -f "$key" ] || ssh-keygen -q -t ed25519 -N '' -C "$prefix" -f "$key"

log "starting the server"
docker volume create --label da-test-server=1 "$prefix-docker" >/dev/null
# Privileged, but with the capabilities this engine may grant: `--privileged` asks for every one and
# fails where the engine itself runs without some (CAP_SYS_RESOURCE on some hosts).
docker run -d --name "$prefix-host" --label da-test-server=1 --hostname "$prefix" \
  --cap-add ALL $(for c in $(missing_caps); do printf -- '--cap-drop %s ' "$c"; done) \
  --security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined \
  --device-cgroup-rule 'a *:* rwm' \
  -v "$prefix-docker:/var/lib/docker" \
  -e "DA_MIRROR=$reg_ip:5000" -e "DA_AUTHORIZED_KEY=$(cat "$key.pub")" -e "DA_SSH_PORT=$ssh_port" -e "DA_USER=$user" \
  "$images-host-init:$init_tag" >/dev/null
host=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$prefix-host")

ssh_opts=(-i "$key" -p "$ssh_port" -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=3)
for i in $(seq 1 120); do
  if ssh "${ssh_opts[@]}" "$user@$host" docker info >/dev/null 2>&1; then break; fi
  if [ "$i" = 120 ]; then log "the server did not answer over SSH with a running engine"; docker logs "$prefix-host" >&2; exit 1; fi
  sleep 0.5
done
# The destination of the off-server backups: a second SSH host (backup.json beside server.json).
DA_TEST_SERVER_PREFIX=$prefix DA_TEST_SERVER_IMAGE_PREFIX=$images DA_TEST_SERVER_DIR=$state bash "$here/backup-host.sh" up >/dev/null
log "ready: ssh -i $key -p $ssh_port $user@$host"
printf '{"host":"%s","port":%s,"user":"%s","private_key_file":"%s"}\n' "$host" "$ssh_port" "$user" "$key" | tee "$state/server.json"
