import { Type, type Static } from 'typebox';

/**
 * The schema of one provider file (`providers/<id>.yaml`): where a plan's server runs, how a person names
 * it, its regions and machine sizes, and the steps that create the server. `providers/places.yaml` holds
 * the places people name ("Frankfurt", "the US"), which each provider maps to one of its regions. A file
 * that does not match stops the server at start, naming the file and the field.
 */

const Id = Type.String({ pattern: '^[a-z][a-z0-9-]*$' });
/** Regular expression sources matched as whole words (`\b(a|b)\b`), case-insensitive unless `matchCase`. */
const Words = Type.Array(Type.String({ minLength: 2 }), { minItems: 1 });
/** A secret as the plan asks for it; every provider secret is required. */
const Secret = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }),
    description: Type.String({ minLength: 1 }),
    secret_type: Type.Union([Type.Literal('password'), Type.Literal('text'), Type.Literal('ssh_private_key')]),
  },
  { additionalProperties: false },
);
const Matcher = Type.Object({ words: Words, matchCase: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

/** Values a provider's templates read (template.ts): the renderer (provisionSteps.ts, dataVolume.ts) supplies exactly these. */
export const PROVISION_NAMES = [
  // The server: `da-<stack>`, where, which type, its root disk and data volume (GB; 0 when none).
  'name', 'region', 'instanceType', 'diskGb', 'volumeGb',
  // The deploy key's path in the workspace; what the firewall allows, in words; the line that says it costs money.
  'deployKey', 'access', 'costs',
  // The person's own server (`user`, `host`, `port`), when the conversation named it.
  'target', 'user', 'host', 'port',
  // Firewall: ports with `port`; sources with `source` and `quoted` (a shell variable in double quotes);
  // rules (`port` × `source`); the web is open to anyone (`webPublic`: add IPv6); `hasWeb`: any web port.
  'sshPorts', 'sshSources', 'sshRules', 'webPorts', 'webSources', 'webRules', 'webPublic', 'hasWeb', 'source', 'quoted',
  // Data volume: its name at the provider, and the server it belongs to.
  'volume', 'server',
] as const;

/**
 * Commands of a step, in order: a template; a template once per item of a list (`each`), each its own
 * command; or a building block every provider shares (`use`): the deploy key made here (`keygen`), this
 * sandbox's address for the firewall (`sandboxCidr`), waiting for SSH and pinning the new server's host
 * key (`reachServer`, as the provision's `user`), the data volume (`createVolume`), and for the person's
 * own server: the SSH target (`connect`) and its host key pinned on first contact (`pinHostKey`). A
 * template that renders empty is left out (a section for something the stack does not have).
 */
const Command = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({ each: Type.Union(['sshPorts', 'sshRules', 'webPorts', 'webRules'].map((l) => Type.Literal(l))), command: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ use: Type.Union(['keygen', 'sandboxCidr', 'reachServer', 'createVolume', 'connect', 'pinHostKey'].map((u) => Type.Literal(u))) }, { additionalProperties: false }),
]);

export const ProviderSchema = Type.Object(
  {
    id: Id,
    /** How the documents name it ("Hetzner Cloud"). */
    label: Type.String({ minLength: 2 }),
    /** How a question names it among the others ("AWS EC2"); the label when absent. */
    shortName: Type.Optional(Type.String({ minLength: 2 })),
    /**
     * The person's own server, at whatever provider: nothing is created, the plan reaches it with their
     * key, and a conversation that names no provider gets it. Exactly one provider file says so.
     */
    existing: Type.Optional(Type.Boolean()),
    /** Names people use for it (`digital ?ocean`, `droplets?`); the existing server's are read only while no provider is named. */
    aliases: Words,
    /** Single words that name the company in "my Hetzner server" (a server the person already has there). */
    brands: Type.Array(Type.String({ pattern: '^[a-z0-9-]+$' })),
    /** The region a plan takes when the person names none. */
    defaultRegion: Type.String({ minLength: 2 }),
    /** Its region ids as people write them (`eu-central-1`, `fsn1`): naming one names the provider too. */
    regionCodes: Type.Optional(Matcher),
    /** Its regions, each with the places (places.yaml ids) it serves. Absent: the region is the place named, in words. */
    regions: Type.Optional(Type.Record(Type.String({ minLength: 2 }), Type.Array(Id))),
    /** Its machine type names as people write them (`t3.large`, `cx32`): one named is the machine. */
    sizeNames: Type.Optional(Matcher),
    /**
     * Machine sizes from small to large: the smallest with memory enough (or asked for) is taken, moved up
     * for heavy load or a product's vCPUs. `diskGb`: the root disk that comes with the type (with `disk: fixed`).
     */
    sizes: Type.Array(
      Type.Object(
        { type: Type.String({ minLength: 2 }), memoryGb: Type.Number({ exclusiveMinimum: 0 }), vcpus: Type.Integer({ minimum: 1 }), diskGb: Type.Optional(Type.Integer({ minimum: 1 })) },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
    /** `sized`: the plan sizes the root disk; `fixed`: the type's disk is what it is, and data beyond it goes to a block volume. */
    disk: Type.Union([Type.Literal('sized'), Type.Literal('fixed')]),
    /** Disks it encrypts at rest (as the plan creates them). */
    encrypted: Type.Boolean(),
    /** Secrets its CLI needs to create the server (or, for the existing server, to reach it). */
    secrets: Type.Array(Secret),
    /** A block volume for data (`disk: fixed`): the device path it appears at (a glob, a template) and the workspace commands that create and attach it. */
    volume: Type.Optional(Type.Object({ device: Type.String({ pattern: '^/dev/' }), create: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }) }, { additionalProperties: false })),
    /**
     * Commands of its CLI a person approves by hand even with Auto-Approve on (execution/dangerous.ts): a
     * regular expression, what it does, and its kind: `lockout` (a firewall that can shut SSH out), `costs`
     * (creates a paid resource), `deletes` (a resource and its data).
     */
    guards: Type.Optional(
      Type.Array(
        Type.Object(
          { kind: Type.Union([Type.Literal('lockout'), Type.Literal('costs'), Type.Literal('deletes')]), pattern: Type.String({ minLength: 5 }), says: Type.String({ minLength: 10 }) },
          { additionalProperties: false },
        ),
      ),
    ),
    /** The steps that create (or reach) the server; `user` is the login of its image. */
    provision: Type.Object(
      {
        user: Type.Optional(Type.String({ pattern: '^[a-z_][a-z0-9_-]*$' })),
        /** A CLI command that creates a server: a plan that runs it is known to create one. */
        creates: Type.Optional(Type.String({ minLength: 5 })),
        /** A CLI command that sets the provider's firewall: a plan that runs it has one. */
        firewall: Type.Optional(Type.String({ minLength: 5 })),
        steps: Type.Array(Type.Object({ title: Type.String({ minLength: 5 }), description: Type.String({ minLength: 10 }), commands: Type.Array(Command, { minItems: 1 }) }, { additionalProperties: false }), { minItems: 1 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type ProviderFile = Static<typeof ProviderSchema>;
export type ProvisionCommand = Static<typeof Command>;

/** places.yaml: places people name, most specific first (the first that a message names is taken). */
export const PlacesSchema = Type.Array(
  Type.Object(
    {
      id: Id,
      /** The place in words: the region of the person's own server, where it is the place. */
      label: Type.String({ minLength: 2 }),
      words: Words,
      matchCase: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  { minItems: 1 },
);

export type Place = Static<typeof PlacesSchema>[number];
