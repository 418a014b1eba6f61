import type { Stack } from './composer';
import { connectCommands, PIN_HOST_KEY, SSH } from './remoteShell';
import type { PlanStep } from './plannerTypes';
import { accessSummary, sshPorts, sshSources, webIsPublic, webSources } from './accessRules';
import { createVolumeCommands } from './dataVolume';

/**
 * The first steps of a plan: reaching the server. The person's own server needs its key and its host
 * key pinned; a server created at a provider is found by name before anything is created (re-executing
 * a step creates nothing twice), and ends as the same kind of SSH target (`ssh-keys/config`).
 */

const DEPLOY_KEY = 'ssh-keys/deploy_key';
const KEYGEN = `umask 077 && mkdir -p ssh-keys && (test -f ${DEPLOY_KEY} || ssh-keygen -t ed25519 -N "" -C deploy -f ${DEPLOY_KEY})`;

/**
 * The sandbox's own public address: the cloud firewall lets it in next to ADMIN_CIDR, so the plan's own
 * later SSH steps are never locked out. No address, no firewall: the step stops instead of guessing.
 */
const SANDBOX_CIDR = 'SANDBOX_IP=$(curl -fsS --max-time 15 https://checkip.amazonaws.com | tr -d "[:space:]"); [ -n "$SANDBOX_IP" ] || { echo "cannot tell this sandbox\'s public address, so the firewall could lock the deploy steps out" >&2; exit 1; }; SANDBOX_CIDR="$SANDBOX_IP/32"; echo "SSH allowed from ADMIN_CIDR and this sandbox ($SANDBOX_CIDR)"';

/** Waits until the new server answers on SSH (pinning its host key), without ending the step early. */
const WAIT_SSH = [
  'for i in $(seq 1 30); do',
  `  if ${SSH} -o StrictHostKeyChecking=accept-new true 2>/dev/null; then break; fi`,
  '  if [ "$i" = 30 ]; then echo "the server does not answer on SSH after 5 minutes" >&2; exit 1; fi',
  '  sleep 10',
  'done',
].join('\n');

/** After creation: the SSH target, the pinned host key, and the person's own key for their own logins. */
const reachServer = (user: string, hostExpr: string): string[] => [
  ...connectCommands({ user, host: hostExpr, port: 22 }, DEPLOY_KEY),
  WAIT_SSH,
  PIN_HOST_KEY,
  `printf '%s\\n' "$SSH_PUBLIC_KEY" | ${SSH} 'umask 077; mkdir -p ~/.ssh; k=$(cat); grep -qxF "$k" ~/.ssh/authorized_keys 2>/dev/null || printf "%s\\n" "$k" >> ~/.ssh/authorized_keys'`,
];

/** A source for the shell: a variable in double quotes, a literal CIDR as it is. */
const quote = (src: string): string => (src.startsWith('$') ? `"${src}"` : src);

const volumeText = (stack: Stack): string => (stack.machine.volumeGb ? `; a ${stack.machine.volumeGb} GB block volume is created (once) and attached to it` : '');

const webPortsOf = (stack: Stack): string[] => [...new Set(stack.published.filter((p) => !p.port.startsWith('127.0.0.1')).map((p) => p.port.split(':')[0]!))];

export function provisionSteps(stack: Stack): PlanStep[] {
  const m = stack.machine;
  const name = `da-${stack.name}`;
  const webPorts = webPortsOf(stack);
  const target = stack.facts.sshTarget;
  const dangerous = 'Creates resources that cost money and opens firewall ports.';
  switch (m.provider) {
    case 'vps': {
      const t = target ?? { user: '$SERVER_USER', host: '$SERVER_HOST', port: 22 };
      return [
        {
          title: 'Connect to the server and pin its host key',
          description: `Write the SSH key from User Secrets (out of the step history), connect to ${target ? `${target.user}@${target.host} on port ${target.port}` : 'the server'} and pin its host key on this first contact; the fingerprint is shown here and later steps refuse any other key.`,
          commands: [
            `umask 077 && mkdir -p ssh-keys && printf '%s\\n' "$SSH_PRIVATE_KEY" > ${DEPLOY_KEY}`,
            ...connectCommands(t, DEPLOY_KEY),
            PIN_HOST_KEY,
          ],
        },
      ];
    }
    case 'aws': {
      const r = `--region ${m.region}`;
      return [
        { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new instance (kept out of the step history).', commands: [KEYGEN] },
        {
          title: 'Create the security group',
          description: `Security group ${name}-sg in ${m.region} (reused when it exists): ${accessSummary(stack, webPorts)}. ${dangerous}`,
          commands: [
            SANDBOX_CIDR,
            `SG=$(aws ec2 describe-security-groups ${r} --filters Name=group-name,Values=${name}-sg --query 'SecurityGroups[0].GroupId' --output text)`,
            `if [ -z "$SG" ] || [ "$SG" = None ]; then SG=$(aws ec2 create-security-group ${r} --group-name ${name}-sg --description "${name}: SSH from admin, web from anywhere" --query GroupId --output text); fi`,
            // An existing rule answers InvalidPermission.Duplicate: that is the state we want.
            `allow() { aws ec2 authorize-security-group-ingress ${r} --group-id "$SG" --protocol tcp --port "$1" --cidr "$2" 2>&1 | grep -v InvalidPermission.Duplicate || true; }`,
            ...sshPorts(stack).flatMap((p) => [...sshSources(stack), '$SANDBOX_CIDR'].map((src) => `allow ${p} ${quote(src)}`)),
            ...webPorts.flatMap((p) => webSources(stack).map((src) => `allow ${p} ${src}`)),
            `aws ec2 describe-security-groups ${r} --group-ids "$SG" --query 'SecurityGroups[0].IpPermissions[].[FromPort,IpRanges[].CidrIp]' --output text`,
          ],
        },
        {
          title: 'Launch the EC2 instance',
          description: `Ubuntu 24.04 LTS on ${m.instanceType} with an encrypted ${m.diskGb} GB gp3 volume, IMDSv2 required, and an Elastic IP; an instance or address tagged ${name} is reused. ${dangerous}`,
          commands: [
            `aws ec2 describe-key-pairs ${r} --key-names ${name}-deploy >/dev/null 2>&1 || aws ec2 import-key-pair ${r} --key-name ${name}-deploy --public-key-material fileb://${DEPLOY_KEY}.pub`,
            `INSTANCE_ID=$(aws ec2 describe-instances ${r} --filters Name=tag:Name,Values=${name} Name=instance-state-name,Values=pending,running,stopping,stopped --query 'Reservations[0].Instances[0].InstanceId' --output text)`,
            `if [ -z "$INSTANCE_ID" ] || [ "$INSTANCE_ID" = None ]; then INSTANCE_ID=$(aws ec2 run-instances ${r} --image-id resolve:ssm:/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id --instance-type ${m.instanceType} --key-name ${name}-deploy --security-groups ${name}-sg --block-device-mappings 'DeviceName=/dev/sda1,Ebs={VolumeSize=${m.diskGb},VolumeType=gp3,Encrypted=true}' --metadata-options HttpTokens=required --tag-specifications 'ResourceType=instance,Tags=[{Key=Name,Value=${name}}]' --query 'Instances[0].InstanceId' --output text); fi`,
            `aws ec2 wait instance-running ${r} --instance-ids "$INSTANCE_ID"`,
            `ALLOC_ID=$(aws ec2 describe-addresses ${r} --filters Name=tag:Name,Values=${name} --query 'Addresses[0].AllocationId' --output text)`,
            `if [ -z "$ALLOC_ID" ] || [ "$ALLOC_ID" = None ]; then ALLOC_ID=$(aws ec2 allocate-address ${r} --domain vpc --tag-specifications 'ResourceType=elastic-ip,Tags=[{Key=Name,Value=${name}}]' --query AllocationId --output text); fi`,
            `aws ec2 associate-address ${r} --instance-id "$INSTANCE_ID" --allocation-id "$ALLOC_ID" --allow-reassociation >/dev/null`,
            `IP=$(aws ec2 describe-addresses ${r} --allocation-ids "$ALLOC_ID" --query 'Addresses[0].PublicIp' --output text)`,
            ...reachServer('ubuntu', '$IP'),
          ],
        },
      ];
    }
    case 'digitalocean':
      return [
        { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new droplet (kept out of the step history).', commands: [KEYGEN] },
        {
          title: 'Create the droplet and its firewall',
          description: `Ubuntu 24.04 droplet ${name} (${m.instanceType}, ${m.region}), reused when it exists; the cloud firewall allows ${accessSummary(stack, webPorts)}${volumeText(stack)}. ${dangerous}`,
          commands: [
            'export DIGITALOCEAN_ACCESS_TOKEN="$DIGITALOCEAN_TOKEN"',
            SANDBOX_CIDR,
            `KEY_ID=$(doctl compute ssh-key list --format ID,Name --no-header | awk '$2=="${name}-deploy"{print $1}')`,
            `[ -n "$KEY_ID" ] || KEY_ID=$(doctl compute ssh-key import ${name}-deploy --public-key-file ${DEPLOY_KEY}.pub --format ID --no-header)`,
            `DROPLET_ID=$(doctl compute droplet list ${name} --format ID --no-header | head -n 1)`,
            `[ -n "$DROPLET_ID" ] || DROPLET_ID=$(doctl compute droplet create ${name} --image ubuntu-24-04-x64 --size ${m.instanceType} --region ${m.region} --ssh-keys "$KEY_ID" --wait --format ID --no-header)`,
            `FW_ID=$(doctl compute firewall list --format ID,Name --no-header | awk '$2=="${name}-fw"{print $1}')`,
            `[ -n "$FW_ID" ] || doctl compute firewall create --name ${name}-fw --droplet-ids "$DROPLET_ID" --inbound-rules "${[...sshPorts(stack).flatMap((p) => [...sshSources(stack), '$SANDBOX_CIDR'].map((src) => `protocol:tcp,ports:${p},address:${src}`)), ...webPorts.flatMap((p) => [...webSources(stack), ...(webIsPublic(stack) ? ['::/0'] : [])].map((src) => `protocol:tcp,ports:${p},address:${src}`))].join(' ')}" --outbound-rules "protocol:tcp,ports:all,address:0.0.0.0/0 protocol:udp,ports:all,address:0.0.0.0/0 protocol:icmp,address:0.0.0.0/0" >/dev/null`,
            ...createVolumeCommands(stack, name),
            `IP=$(doctl compute droplet get "$DROPLET_ID" --format PublicIPv4 --no-header)`,
            ...reachServer('root', '$IP'),
          ],
        },
      ];
    case 'hetzner':
      return [
        { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new server (kept out of the step history).', commands: [KEYGEN] },
        {
          title: 'Create the server and its firewall',
          description: `Ubuntu 24.04 ${m.instanceType} named ${name} in ${m.region}, reused when it exists; the firewall allows ${accessSummary(stack, webPorts)}${volumeText(stack)}. ${dangerous}`,
          commands: [
            SANDBOX_CIDR,
            `hcloud ssh-key describe ${name}-deploy >/dev/null 2>&1 || hcloud ssh-key create --name ${name}-deploy --public-key-from-file ${DEPLOY_KEY}.pub`,
            `if ! hcloud firewall describe ${name}-fw >/dev/null 2>&1; then`,
            `  hcloud firewall create --name ${name}-fw`,
            ...sshPorts(stack).map((p) => `  hcloud firewall add-rule ${name}-fw --direction in --protocol tcp --port ${p} ${[...sshSources(stack), '$SANDBOX_CIDR'].map((src) => `--source-ips ${quote(src)}`).join(' ')}`),
            ...webPorts.map((p) => `  hcloud firewall add-rule ${name}-fw --direction in --protocol tcp --port ${p} ${webSources(stack).map((src) => `--source-ips ${src}`).join(' ')}${webIsPublic(stack) ? ' --source-ips ::/0' : ''}`),
            'fi',
            `hcloud server describe ${name} >/dev/null 2>&1 || hcloud server create --name ${name} --type ${m.instanceType} --image ubuntu-24.04 --location ${m.region} --ssh-key ${name}-deploy --firewall ${name}-fw`,
            ...createVolumeCommands(stack, name),
            `IP=$(hcloud server ip ${name})`,
            ...reachServer('root', '$IP'),
          ],
        },
      ];
    case 'gcp': {
      const zone = `${m.region}-a`;
      const p = '--project "$GCP_PROJECT_ID"';
      return [
        { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new VM (kept out of the step history).', commands: [KEYGEN] },
        {
          title: 'Create the VM and its firewall rules',
          description: `Ubuntu 24.04 ${m.instanceType} named ${name} in ${zone} with a ${m.diskGb} GB disk, reused when it exists; firewall rules allow ${accessSummary(stack, webPorts)}. ${dangerous}`,
          commands: [
            'umask 077 && printf \'%s\' "$GCP_SERVICE_ACCOUNT_KEY" > ssh-keys/gcp-key.json && gcloud auth activate-service-account --key-file ssh-keys/gcp-key.json && rm -f ssh-keys/gcp-key.json',
            SANDBOX_CIDR,
            `gcloud compute firewall-rules describe ${name}-ssh ${p} >/dev/null 2>&1 || gcloud compute firewall-rules create ${name}-ssh ${p} --allow ${sshPorts(stack).map((x) => `tcp:${x}`).join(',')} --source-ranges "${[...sshSources(stack), '$SANDBOX_CIDR'].join(',')}" --target-tags ${name}`,
            ...(webPorts.length ? [`gcloud compute firewall-rules describe ${name}-web ${p} >/dev/null 2>&1 || gcloud compute firewall-rules create ${name}-web ${p} --allow ${webPorts.map((x) => `tcp:${x}`).join(',')} --source-ranges ${webSources(stack).join(',')} --target-tags ${name}`] : []),
            `gcloud compute instances describe ${name} ${p} --zone ${zone} >/dev/null 2>&1 || gcloud compute instances create ${name} ${p} --zone ${zone} --machine-type ${m.instanceType} --image-family ubuntu-2404-lts-amd64 --image-project ubuntu-os-cloud --boot-disk-size ${m.diskGb}GB --tags ${name} --metadata "ssh-keys=ubuntu:$(cat ${DEPLOY_KEY}.pub)"`,
            `IP=$(gcloud compute instances describe ${name} ${p} --zone ${zone} --format='get(networkInterfaces[0].accessConfigs[0].natIP)')`,
            ...reachServer('ubuntu', '$IP'),
          ],
        },
      ];
    }
    case 'azure': {
      const g = `--resource-group ${name}-rg`;
      return [
        { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new VM (kept out of the step history).', commands: [KEYGEN] },
        {
          title: 'Create the VM and open its ports',
          description: `Ubuntu 24.04 ${m.instanceType} named ${name} in ${m.region}, reused when it exists; the network security group allows ${accessSummary(stack, webPorts)}. ${dangerous}`,
          commands: [
            'az login --service-principal -u "$AZURE_CLIENT_ID" -p "$AZURE_CLIENT_SECRET" --tenant "$AZURE_TENANT_ID" --output none && az account set --subscription "$AZURE_SUBSCRIPTION_ID"',
            SANDBOX_CIDR,
            `az group show --name ${name}-rg --output none 2>/dev/null || az group create --name ${name}-rg --location ${m.region} --output none`,
            `az vm show ${g} --name ${name} --output none 2>/dev/null || az vm create ${g} --name ${name} --image Ubuntu2404 --size ${m.instanceType} --admin-username ubuntu --ssh-key-values ${DEPLOY_KEY}.pub --os-disk-size-gb ${m.diskGb} --public-ip-sku Standard --nsg ${name}-nsg --nsg-rule SSH --output none`,
            `az network nsg rule update ${g} --nsg-name ${name}-nsg --name default-allow-ssh --source-address-prefixes ${[...sshSources(stack), '$SANDBOX_CIDR'].map(quote).join(' ')} --destination-port-ranges ${sshPorts(stack).join(' ')} --output none`,
            ...(!webPorts.length
              ? []
              : webIsPublic(stack)
                ? [`az vm open-port ${g} --name ${name} --port ${webPorts.join(',')} --priority 1010 --output none`]
                : [`az network nsg rule show ${g} --nsg-name ${name}-nsg --name ${name}-web --output none 2>/dev/null || az network nsg rule create ${g} --nsg-name ${name}-nsg --name ${name}-web --priority 1010 --direction Inbound --access Allow --protocol Tcp --source-address-prefixes ${webSources(stack).join(' ')} --destination-port-ranges ${webPorts.join(' ')} --output none`]),
            `IP=$(az vm show -d ${g} --name ${name} --query publicIps --output tsv)`,
            ...reachServer('ubuntu', '$IP'),
          ],
        },
      ];
    }
  }
}

export { webPortsOf };
