import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { readProviders } from '../../../src/server/agents/catalogue/providers';

/**
 * Adding a provider touches one file: a temp copy of the provider catalogue gets UpCloud, and a
 * conversation that names it and a city gets a plan at its region, on its sizes, with its secrets, its
 * data volume and its own provisioning commands, with no code change. The providers are read once per
 * module registry, so the planner's modules are imported after PROVIDERS_DIR points at the copy.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'one-file-providers-'));
const source = path.resolve('src/server/agents/catalogue/providers');
for (const f of fs.readdirSync(source)) fs.copyFileSync(path.join(source, f), path.join(dir, f));

const upcloud = {
  id: 'upcloud',
  label: 'UpCloud',
  aliases: ['upcloud'],
  brands: ['upcloud'],
  defaultRegion: 'de-fra1',
  regionCodes: { words: ['(de|fi|us|uk|nl|sg)-[a-z]{3}\\d'] },
  regions: { 'de-fra1': ['frankfurt', 'europe'], 'fi-hel1': ['helsinki'], 'us-nyc1': ['us-east', 'usa'] },
  sizeNames: { words: ['\\d+xCPU-\\d+GB'], matchCase: true },
  sizes: [
    { type: '1xCPU-2GB', memoryGb: 2, vcpus: 1, diskGb: 50 },
    { type: '2xCPU-4GB', memoryGb: 4, vcpus: 2, diskGb: 80 },
    { type: '4xCPU-8GB', memoryGb: 8, vcpus: 4, diskGb: 160 },
  ],
  disk: 'fixed',
  encrypted: false,
  secrets: [
    { name: 'UPCLOUD_USERNAME', description: 'UpCloud API user', secret_type: 'text' },
    { name: 'UPCLOUD_PASSWORD', description: 'Password of the UpCloud API user', secret_type: 'password' },
  ],
  volume: {
    device: '/dev/disk/by-id/virtio-{{volume}}',
    create: ['upctl storage show {{volume}} >/dev/null 2>&1 || upctl storage create --title {{volume}} --size {{volumeGb}} --zone {{region}}', 'upctl server storage attach {{server}} --storage {{volume}} || true'],
  },
  guards: [
    { kind: 'costs', pattern: '\\bupctl\\s+(server|storage)\\s+create\\b', says: 'Creates a paid UpCloud resource' },
    { kind: 'lockout', pattern: '\\bupctl\\s+server\\s+firewall\\s+(create|delete)\\b', says: 'Changes an UpCloud firewall' },
  ],
  provision: {
    user: 'root',
    creates: 'upctl server create',
    steps: [
      { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new server.', commands: [{ use: 'keygen' }] },
      {
        title: 'Create the server and its firewall',
        description: 'Ubuntu 24.04 {{instanceType}} named {{name}} in {{region}}; the firewall allows {{access}}. {{costs}}',
        commands: [
          { use: 'sandboxCidr' },
          'upctl server show {{name}} >/dev/null 2>&1 || upctl server create --hostname {{name}} --plan {{instanceType}} --zone {{region}} --os "Ubuntu Server 24.04 LTS" --ssh-keys {{deployKey}}.pub',
          { each: 'sshRules', command: 'upctl server firewall create {{name}} --direction in --action accept --destination-port-start {{port}} --source-address {{quoted}}' },
          { each: 'webRules', command: 'upctl server firewall create {{name}} --direction in --action accept --destination-port-start {{port}} --source-address {{source}}' },
          { use: 'createVolume' },
          'IP=$(upctl server show {{name}} -o json | jq -r ".ip_addresses[0].address")',
          { use: 'reachServer' },
        ],
      },
    ],
  },
};
fs.writeFileSync(path.join(dir, 'upcloud.yaml'), YAML.stringify(upcloud));

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a new provider gets plans at its regions, on its sizes, with its own provisioning, from its file alone', async () => {
  process.env.PROVIDERS_DIR = dir;
  const { extractFacts } = await import('../../../src/server/agents/offline/facts');
  const { composeStack } = await import('../../../src/server/agents/offline/composer');
  const { planSteps } = await import('../../../src/server/agents/offline/deploySteps');

  const facts = extractFacts(['WordPress with MySQL on UpCloud in Helsinki, with 300 GB of storage for uploads']);
  expect(facts.provider).toBe('upcloud');
  expect(facts.region).toBe('fi-hel1');
  const stack = composeStack(facts);
  expect(stack.machine).toMatchObject({ provider: 'upcloud', providerLabel: 'UpCloud', region: 'fi-hel1', existing: false, encrypted: false });
  expect(upcloud.sizes.map((s) => s.type)).toContain(stack.machine.instanceType);
  // The size's disk is fixed: the data beyond it is a block volume, made and mounted from the file's commands.
  expect(stack.machine.volumeGb).toBe(300);
  expect(stack.secrets.map((s) => s.name)).toEqual(expect.arrayContaining(['UPCLOUD_USERNAME', 'UPCLOUD_PASSWORD', 'ADMIN_CIDR', 'SSH_PUBLIC_KEY']));

  const steps = planSteps(stack);
  const create = steps.find((s) => s.title === 'Create the server and its firewall')!;
  expect(create.description).toContain(`${stack.machine.instanceType} named da-${stack.name} in fi-hel1`);
  expect(create.commands).toContain(`upctl server show da-${stack.name} >/dev/null 2>&1 || upctl server create --hostname da-${stack.name} --plan ${stack.machine.instanceType} --zone fi-hel1 --os "Ubuntu Server 24.04 LTS" --ssh-keys ssh-keys/deploy_key.pub`);
  // One command per SSH port and source, as `each` says: the admin range and this sandbox, quoted for the shell.
  expect(create.commands.filter((c) => c.includes('--destination-port-start 22 '))).toEqual([
    `upctl server firewall create da-${stack.name} --direction in --action accept --destination-port-start 22 --source-address "$ADMIN_CIDR"`,
    `upctl server firewall create da-${stack.name} --direction in --action accept --destination-port-start 22 --source-address "$SANDBOX_CIDR"`,
  ]);
  expect(create.commands).toContain(`upctl storage show da-${stack.name}-data >/dev/null 2>&1 || upctl storage create --title da-${stack.name}-data --size 300 --zone fi-hel1`);
  expect(JSON.stringify(steps)).toContain(`/dev/disk/by-id/virtio-da-${stack.name}-data`);

  // Its CLI's paid and firewall calls wait for a person's approval, as its file says.
  const { dangerousReason } = await import('../../../src/server/services/execution/dangerous');
  expect(dangerousReason(create.commands.find((c) => c.includes('upctl server create'))!)).toMatch(/^Creates a paid UpCloud resource: it costs money/);
  expect(dangerousReason(create.commands.find((c) => c.includes('upctl server firewall create'))!)).toMatch(/^Changes an UpCloud firewall: can lock you/);

  // A size named by its own name is the machine, and a region id names the provider.
  const named = extractFacts(['a static website on a 4xCPU-8GB in us-nyc1']);
  expect(named).toMatchObject({ provider: 'upcloud', region: 'us-nyc1', instanceType: '4xCPU-8GB' });
});

test("a model's setTarget takes the new provider, and no provider without a file", async () => {
  process.env.PROVIDERS_DIR = dir;
  const { checkedStackOp } = await import('../../../src/server/services/planning/stackEditing');
  expect(checkedStackOp({ op: 'setTarget', target: { kind: 'new', provider: 'upcloud', region: 'fi-hel1' } }, 'operation 1')).toMatchObject({ target: { provider: 'upcloud' } });
  expect(() => checkedStackOp({ op: 'setTarget', target: { kind: 'new', provider: 'linode' } }, 'operation 1')).toThrow('operation 1 (setTarget): there is no provider "linode" (there are aws, azure, digitalocean, gcp, hetzner, upcloud, vps)');
  // The tool a real model calls lists the providers there are files for.
  const { STACK_OP_AGENT_TOOLS } = await import('../../../src/server/services/planning/agents/stackOpTools');
  const setTarget = JSON.stringify(STACK_OP_AGENT_TOOLS.find((t) => t.function.name === 'setTarget')!.function.parameters);
  expect(setTarget).toContain('"enum":["aws","azure","digitalocean","gcp","hetzner","upcloud","vps"]');
});

test('a provider file that does not fit says which file and what', () => {
  const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'bad-providers-'));
  try {
    for (const f of ['places.yaml', 'vps.yaml']) fs.copyFileSync(path.join(source, f), path.join(bad, f));
    const withTemplate = (command: string) => ({ ...upcloud, provision: { ...upcloud.provision, steps: [{ ...upcloud.provision.steps[0]!, commands: [command] }] } });
    fs.writeFileSync(path.join(bad, 'upcloud.yaml'), YAML.stringify(withTemplate('upctl server create --plan {{size}}')));
    expect(() => readProviders(bad)).toThrow('upcloud.yaml: template "upctl server create --plan {{size}}" reads size, which no plan supplies');
    fs.writeFileSync(path.join(bad, 'upcloud.yaml'), YAML.stringify(withTemplate('{{#sshPorts}}open {{port}}')));
    expect(() => readProviders(bad)).toThrow('{{#sshPorts}} is not closed');
    fs.writeFileSync(path.join(bad, 'upcloud.yaml'), YAML.stringify({ ...upcloud, regions: { 'de-fra1': ['atlantis'] } }));
    expect(() => readProviders(bad)).toThrow('upcloud.yaml: region de-fra1 serves atlantis, which is not in places.yaml');
    fs.writeFileSync(path.join(bad, 'upcloud.yaml'), YAML.stringify({ ...upcloud, guards: [{ kind: 'costs', pattern: 'upctl (server create', says: 'Creates a paid UpCloud resource' }] }));
    expect(() => readProviders(bad)).toThrow('upcloud.yaml: "upctl (server create" is not a regular expression');
    fs.writeFileSync(path.join(bad, 'upcloud.yaml'), YAML.stringify({ ...upcloud, existing: true }));
    expect(() => readProviders(bad)).toThrow('exactly one provider file says existing: true');
  } finally {
    fs.rmSync(bad, { recursive: true, force: true });
  }
});
