import fc from 'fast-check';
import { readBackupWords } from '../../../src/server/agents/offline/backupWords';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { renderImplementationPlan, renderRequirements, renderArchitecturePlan, readStackDefinition } from '../../../src/server/agents/offline/documents';
import { modelOfStack, renderStack } from '../../../src/server/agents/offline/stackModelBridge';
import { applyStackOp } from '../../../src/shared/stackOps';
import { CATALOGUE_VIEW } from '../../../src/server/agents/offline/stackModelBridge';
import { AWS_S3_ENDPOINT, destinationOf, placeOf, type S3Place, type SftpPlace } from '../../../src/shared/backupDestination';
import { parsePlanSteps } from '../../../src/shared/planSteps';
import { converse } from '../helpers/plannerConversation';

/**
 * The backup destination the person chooses, in words: generated phrasings of an SSH host or an S3 bucket
 * (order, filler, case, the sentences around it) all give the one restic repository URL; the words about
 * it are never read as the stack's domain or its deploy server; the plan's backup step, the documents and
 * the User Secrets follow it, and without one the plan says the backups stay on the server.
 */

const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}[a-z0-9]$/).filter((l) => !l.includes('--'));
const hostname = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('de', 'net', 'org', 'io', 'com', 'lan')).map(([ls, tld]) => `${ls.join('.')}.${tld}`);
const ipv4 = fc.tuple(fc.integer({ min: 1, max: 223 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 254 })).map((o) => o.join('.'));
const user = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
const absPath = fc.array(fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,7}$/), { minLength: 1, maxLength: 3 }).map((p) => `/${p.join('/')}`);
const port = fc.integer({ min: 1, max: 65535 });
const bucket = fc.stringMatching(/^[a-z0-9][a-z0-9-]{1,14}[a-z0-9]$/).filter((b) => !b.includes('backup'));
/** The phrasing's own words (never a value: a user or bucket name keeps its case) in upper case where `flips` says. */
const PHRASING = new Set('back up to my storage box at backups over sftp port as user folder please send the nightly use for i want on path should go s3 bucket endpoint store in minio called amazon ssh s3-compatible prefix'.split(' '));
const upperSome = (text: string, flips: boolean[]): string => text.split(' ').map((w, i) => (flips[i % flips.length] && PHRASING.has(w.toLowerCase()) ? w.toUpperCase() : w)).join(' ');

/** Sentences around the one about backups: a stack, the deploy server, a domain. */
const around = fc.subarray(['Nextcloud with PostgreSQL.', 'It runs on my server deploy@203.0.113.7 port 2222.', 'Serve it at cloud.example.org.', 'Plain HTTP is fine for now.']);

const sftpPlace = fc.record({ user, host: fc.oneof(hostname, ipv4), port, path: absPath }).map((p): SftpPlace => ({ kind: 'sftp', ...p }));
/** Ways to say an SSH destination, each with the place it names (a phrasing without a port or path names the default). */
const sftpPhrasing = fc.tuple(sftpPlace, fc.integer({ min: 0, max: 6 })).map(([p, form]): [string, SftpPlace] => {
  const d22 = { ...p, port: 22 };
  const home = { ...p, path: 'stack-backups' };
  switch (form) {
    case 0:
      return [`back up to my storage box at ${p.user}@${p.host}`, { ...home, port: 22 }];
    case 1:
      return [`backups over SFTP to ${p.host} port ${p.port} as user ${p.user}, folder ${p.path}`, p];
    case 2:
      return [`please send the nightly backups to ${p.user}@${p.host}:${p.port}`, home];
    case 3:
      return [`use sftp://${p.user}@${p.host}:${p.port}/${p.path} for the backups`, p];
    case 4:
      return [`Back up over ssh to ${p.user}@${p.host}:${p.path} port ${p.port}`, p];
    case 5:
      return [`I want the backups on ${p.host}, user ${p.user}, path ${p.path}`, d22];
    default:
      return [`backups should go to sftp:${p.user}@${p.host}:${p.path}`, d22];
  }
});

const endpoint = fc.tuple(hostname, fc.option(fc.integer({ min: 1024, max: 65535 }), { nil: undefined })).map(([h, p]) => `https://${h}${p ? `:${p}` : ''}`);
const s3Phrasing = fc.tuple(bucket, endpoint, fc.option(absPath, { nil: undefined }), fc.integer({ min: 0, max: 4 })).map(([b, e, prefix, form]): [string, S3Place] => {
  const place: S3Place = { kind: 's3', endpoint: e, bucket: b };
  switch (form) {
    case 0:
      return [`back up to S3 bucket ${b} at endpoint ${e}`, place];
    case 1:
      return [`Store backups in the MinIO bucket called ${b} at ${e.replace('https://', '')}`, place];
    case 2:
      return [`backups go to the S3-compatible store ${e}, bucket ${b}${prefix ? `, prefix ${prefix}` : ''}`, { ...place, ...(prefix ? { prefix: prefix.slice(1) } : {}) }];
    case 3:
      return [`back up to Amazon S3 bucket ${b}`, { ...place, endpoint: AWS_S3_ENDPOINT }];
    default:
      return [`use s3:${e}/${b}${prefix ?? ''} for backups`, { ...place, ...(prefix ? { prefix: prefix.slice(1) } : {}) }];
  }
});

describe('the destination in words', () => {
  it('an SSH host, however said, is one sftp repository; its words are neither the domain nor the deploy server', () => {
    fc.assert(
      fc.property(sftpPhrasing, around, fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.nat(), ([said, place], others, flips, at) => {
        const sentence = upperSome(said, flips);
        const parts = [...others];
        parts.splice(at % (parts.length + 1), 0, `${sentence}.`);
        const text = parts.join(' ');
        expect(readBackupWords(text).destination).toBe(destinationOf(place));
        const facts = extractFacts([text]);
        expect(facts.backup?.destination).toBe(destinationOf(place));
        expect(facts.domains.map((d) => d.host)).not.toContain(place.host);
        if (others.some((o) => o.includes('deploy@'))) expect(facts.sshTarget).toEqual({ user: 'deploy', host: '203.0.113.7', port: 2222 });
        else expect(facts.sshTarget).toBeUndefined();
        if (others.some((o) => o.includes('cloud.example.org'))) expect(facts.domain).toBe('cloud.example.org');
      }),
      { numRuns: 300 },
    );
  });

  it('an S3 bucket, however said, is one s3 repository at its endpoint (Amazon S3 when none is named)', () => {
    fc.assert(
      fc.property(s3Phrasing, around, fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), ([said, place], others, flips) => {
        const text = [...others, `${upperSome(said, flips)}.`].join(' ');
        const facts = extractFacts([text]);
        expect(facts.backup?.destination).toBe(destinationOf(place));
        expect(facts.domains.map((d) => d.host)).not.toContain(new URL(place.endpoint).hostname);
      }),
      { numRuns: 300 },
    );
  });

  it('a later message wins: another destination, or the backups kept on the server', () => {
    const first = 'back up to restic@nas.example.lan:/srv/restic';
    expect(extractFacts([first, 'back up to S3 bucket app-data at endpoint https://s3.example.net']).backup?.destination).toBe('s3:https://s3.example.net/app-data');
    for (const local of ['keep the backups on the server', 'no off-site backups', 'Backups locally, please']) {
      const facts = extractFacts([first, local]);
      expect([local, facts.backup?.destination]).toEqual([local, undefined]);
      expect(facts.backup).toBeDefined();
    }
  });

  it("backups on the stack's own server are no destination, and that server stays the deploy target", () => {
    for (const text of ['PostgreSQL with nightly backups on my server deploy@203.0.113.7 port 2222', 'Nextcloud, backups on our server root@198.51.100.4']) {
      const facts = extractFacts([text]);
      expect([text, facts.backup?.destination]).toEqual([text, undefined]);
      expect(facts.sshTarget?.host).toMatch(/^(203\.0\.113\.7|198\.51\.100\.4)$/);
    }
    expect(extractFacts(['back up to my other server backup@nas.example.lan']).backup?.destination).toBe('sftp://backup@nas.example.lan:22/stack-backups');
  });

  it('keeps no credential and says what it could not use; words without a place change nothing', () => {
    const withPassword = readBackupWords('backups to sftp://restic:hunter2@h.example.com//srv');
    expect(withPassword.destination).toBeUndefined();
    expect(withPassword.problems.join(' ')).toMatch(/password/);
    expect(withPassword.rest).not.toContain('hunter2');
    expect(readBackupWords('back up to S3').problems.join(' ')).toMatch(/bucket/);
    for (const text of ['I want daily backups', 'Postgres and nightly backups, served at app.example.com', 'mail backup reports to ops@example.com']) {
      expect([text, readBackupWords(text).destination]).toEqual([text, undefined]);
      expect(readBackupWords(text).rest).toBe(text);
    }
  });

  it('never throws, and the text keeps its length (positions hold for what reads the rest)', () => {
    fc.assert(fc.property(fc.string(), (text) => expect(readBackupWords(`back up to ${text}`).rest.length).toBe(`back up to ${text}`.length)));
  });

  it('round trip: a destination read back is the same place', () => {
    fc.assert(fc.property(fc.oneof(sftpPlace, s3Phrasing.map(([, p]) => p)), (p) => expect(destinationOf(placeOf(destinationOf(p))!)).toBe(destinationOf(p))));
  });
});

describe('the plan follows the destination', () => {
  const base = 'Nextcloud with PostgreSQL on my server deploy@203.0.113.7 port 2222, plain HTTP is fine';

  it('an SSH destination: the backup step sends the backups there, the documents say so, and its secrets are required', () => {
    const stack = composeStack(extractFacts([`${base}. Back up to my storage box at u123@u123.your-storagebox.de port 23.`]));
    const step = parsePlanSteps(renderImplementationPlan(stack)).find((s) => /^Back up/.test(s.description))!;
    expect(step.description).toContain('Back up off the server');
    expect(step.command).toContain("repo='sftp://u123@u123.your-storagebox.de:23/stack-backups'");
    const secrets = stack.secrets.filter((s) => s.name.startsWith('BACKUP_'));
    expect(secrets.map((s) => [s.name, s.required])).toEqual([
      ['BACKUP_PASSWORD', true],
      ['BACKUP_SSH_KEY', true],
    ]);
    const requirements = renderRequirements(stack, {});
    expect(requirements).toContain('to the SSH host u123.your-storagebox.de port 23 as user u123, folder stack-backups (over SFTP)');
    // The documents name no credential, and reading them back keeps the deploy server (not the backup host).
    expect(requirements).not.toMatch(/BACKUP_PASSWORD=|BEGIN OPENSSH/);
    const architecture = renderArchitecturePlan(stack);
    expect(architecture).toContain('- Backups: nightly restic snapshots (restic encrypts them)');
    const read = readStackDefinition(architecture)!;
    expect(read.facts.backup?.destination).toBe('sftp://u123@u123.your-storagebox.de:23/stack-backups');
    expect(read.facts.sshTarget).toEqual({ user: 'deploy', host: '203.0.113.7', port: 2222 });
    // The next stage's plan, from the architecture's definition, still sends the backups there.
    const next = renderImplementationPlan(composeStack({ ...read.facts, acceptsDefaults: true }));
    expect(next).toContain("repo='sftp://u123@u123.your-storagebox.de:23/stack-backups'");
  });

  it('an S3 destination asks for its own keys, never the AWS keys that create a machine', () => {
    const stack = composeStack(extractFacts([`${base}. Back up to S3 bucket app-data at endpoint https://s3.eu-central-003.backblazeb2.com.`]));
    expect(stack.secrets.filter((s) => /^BACKUP_|^AWS_/.test(s.name)).map((s) => s.name)).toEqual(['BACKUP_PASSWORD', 'BACKUP_S3_ACCESS_KEY_ID', 'BACKUP_S3_SECRET_ACCESS_KEY']);
    expect(renderImplementationPlan(stack)).toContain("repo='s3:https://s3.eu-central-003.backblazeb2.com/app-data'");
  });

  it('without one the step and the documents say plainly that the backups stay on the server, and ask for no backup secret', () => {
    const stack = composeStack(extractFacts([base]));
    const step = parsePlanSteps(renderImplementationPlan(stack)).find((s) => /^Back up/.test(s.description))!;
    expect(step.description).toContain('Back up on the server only');
    expect(renderRequirements(stack, {})).toContain("on the server's own disk only: no destination is chosen");
    expect(stack.secrets.some((s) => s.name.startsWith('BACKUP_'))).toBe(false);
  });

  it('the requirements conversation says where the backups go, lists their secrets, and says what it could not take', () => {
    const chat = converse([`${base}.`, 'Back up to my storage box at u123@u123.your-storagebox.de port 23.', 'back up to S3 please']);
    expect(chat.replies[1]).toContain('- Backups: to the SSH host u123.your-storagebox.de port 23 as user u123, folder stack-backups (over SFTP)');
    expect(chat.secrets.map((x) => x.name)).toEqual(expect.arrayContaining(['BACKUP_PASSWORD', 'BACKUP_SSH_KEY']));
    expect(chat.document).toContain('Backups: nightly restic snapshots');
    // Words without a bucket change nothing, and the reply says why.
    expect(chat.replies[2]).toContain("Backup destination not taken: an S3-compatible destination needs the bucket's name");
    expect(chat.replies[2]).toContain('- Backups: to the SSH host u123.your-storagebox.de');
  });

  it('the panel sets and clears the destination through setBackup; the plan renders from it', () => {
    const model = modelOfStack(composeStack(extractFacts([base])));
    const set = applyStackOp(model, { op: 'setBackup', destination: 'sftp://restic@backup.example.net:2222//srv/restic' }, CATALOGUE_VIEW);
    expect(renderImplementationPlan(renderStack(set))).toContain("repo='sftp://restic@backup.example.net:2222//srv/restic'");
    const cleared = applyStackOp(set, { op: 'setBackup', destination: null }, CATALOGUE_VIEW);
    expect(cleared.backup.destination).toBeUndefined();
    expect(renderImplementationPlan(renderStack(cleared))).toContain('Back up on the server only');
  });
});
