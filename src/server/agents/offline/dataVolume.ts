import type { Stack } from './composer';
import type { PlanStep } from './plannerTypes';
import { remote } from './remoteShell';
import { providerOf } from './knowledge';
import { renderTemplate, type Scope } from '../catalogue/template';

/**
 * Storage the person asked for, made real: where the machine type's root disk cannot grow (a provider
 * file with `disk: fixed` and a `volume`) a block volume is created at the provider, attached, mounted at
 * /mnt/data and made Docker's data root before Docker is installed; on the person's own server the plan
 * adds no disk but stops when the disk has less free space than asked. Other providers size the root disk.
 */

export const DATA_MOUNT = '/mnt/data';
const DOCKER_ROOT = `${DATA_MOUNT}/docker`;

/** The volume's name at the provider, next to the server it belongs to. */
const volumeName = (serverName: string): string => `${serverName}-data`;

/** The values a provider file's volume templates read. */
const volumeScope = (stack: Stack, serverName: string): Scope => ({ volume: volumeName(serverName), volumeGb: stack.machine.volumeGb ?? 0, server: serverName, region: stack.machine.region });

/** Workspace: creates the data volume (once) and attaches it to the server, as its provider's file says. */
export function createVolumeCommands(stack: Stack, serverName: string): string[] {
  const volume = providerOf(stack.machine.provider).volume;
  if (!stack.machine.volumeGb || !volume) return [];
  const scope = volumeScope(stack, serverName);
  return volume.create.map((c) => renderTemplate(c, scope));
}

/** The device path the provider gives an attached volume (a glob where the name is the provider's). */
function devicePattern(stack: Stack, serverName: string): string | undefined {
  const volume = providerOf(stack.machine.provider).volume;
  return volume ? renderTemplate(volume.device, volumeScope(stack, serverName)) : undefined;
}

/**
 * Remote step: the attached volume mounted at /mnt/data by UUID (in fstab, so it comes back after a
 * reboot; Hetzner's automount elsewhere is undone), formatted only when it holds no filesystem, and
 * Docker's data root on it. Docker restarts only when it already runs with another root.
 */
export function mountVolumeStep(stack: Stack, serverName: string): PlanStep | undefined {
  const device = devicePattern(stack, serverName);
  if (!stack.machine.volumeGb || !device) return undefined;
  return {
    title: 'Mount the data volume and keep Docker\'s data on it',
    description: `The ${stack.machine.volumeGb} GB block volume is mounted at ${DATA_MOUNT} (by UUID in /etc/fstab) and becomes Docker's data root (${DOCKER_ROOT}), so images, containers and volumes live on it.`,
    commands: [
      remote(
        [
          `DEV=$(ls ${device} 2>/dev/null | head -n 1); [ -n "$DEV" ] || { echo "the data volume is not attached to this server" >&2; exit 1; }`,
          'DEV=$(readlink -f "$DEV")',
          'sudo blkid "$DEV" >/dev/null || sudo mkfs.ext4 -q "$DEV"',
          'UUID=$(sudo blkid -s UUID -o value "$DEV")',
          'WHERE=$(findmnt -n -o TARGET --source "$DEV" || true)',
          `if [ -n "$WHERE" ] && [ "$WHERE" != ${DATA_MOUNT} ]; then sudo umount "$WHERE"; sudo sed -i "\\#[[:space:]]\${WHERE}[[:space:]]#d" /etc/fstab; fi`,
          `grep -q "^UUID=$UUID " /etc/fstab || echo "UUID=$UUID ${DATA_MOUNT} ext4 discard,nofail,defaults 0 2" | sudo tee -a /etc/fstab`,
          `sudo mkdir -p ${DATA_MOUNT} && (mountpoint -q ${DATA_MOUNT} || sudo mount ${DATA_MOUNT})`,
          `sudo mkdir -p /etc/docker ${DOCKER_ROOT}`,
          `[ -s /etc/docker/daemon.json ] && ! grep -q '"data-root"' /etc/docker/daemon.json && { echo "/etc/docker/daemon.json has other settings: add \\"data-root\\": \\"${DOCKER_ROOT}\\" to it by hand" >&2; exit 1; } || true`,
          `echo '{"data-root": "${DOCKER_ROOT}"}' | sudo tee /etc/docker/daemon.json`,
          `if command -v docker >/dev/null 2>&1 && sudo docker info >/dev/null 2>&1 && [ "$(sudo docker info --format '{{.DockerRootDir}}')" != ${DOCKER_ROOT} ]; then sudo systemctl restart docker; fi`,
          `df -h ${DATA_MOUNT}`,
        ].join('\n'),
      ),
    ],
  };
}

/** Remote lines of the Docker step: the data root is on the volume (a volume was planned) or the disk has the free space asked for (the person's own server). */
export function storageChecks(stack: Stack): string[] {
  const m = stack.machine;
  if (m.volumeGb && devicePattern(stack, '')) {
    return [`root=$(docker info --format '{{.DockerRootDir}}'); [ "$root" = ${DOCKER_ROOT} ] || { echo "Docker keeps its data in $root, not on the data volume (${DOCKER_ROOT})" >&2; exit 1; }; echo "Docker data root: $root"`];
  }
  if (m.existing && stack.facts.storageGb) {
    return [
      `dir=$(docker info --format '{{.DockerRootDir}}'); free=$(df -PBG "$dir" | awk 'NR==2{print $4+0}')`,
      `[ "$free" -ge ${m.diskGb} ] || { echo "this plan needs ${m.diskGb} GB free on the server's disk, it has $free GB: add a volume at your provider (or free space), then re-execute this step" >&2; exit 1; }`,
      `echo "disk holding $dir: $free GB free, ${m.diskGb} GB needed"`,
    ];
  }
  return [];
}
