import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { secureDataDir } from '../../../src/server/dataDir';
import { openDatabase } from '../../../src/server/db/client';
import { MIGRATIONS_DIR, pgliteTemplate } from '../helpers/databaseTemplates';
import { asOtherUser, asRoot, modesUnder } from '../helpers/fileAccess';

describe('DATA_DIR is the server user\'s alone', () => {
  let dataDir: string;
  let umask: number;

  beforeEach(() => {
    umask = process.umask();
    // A parent anyone may traverse, as /srv or /var/lib are: what protects DATA_DIR is DATA_DIR's own mode.
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'da-datadir-'));
    fs.chmodSync(parent, 0o755);
    dataDir = path.join(parent, 'data');
  });
  afterEach(() => {
    process.umask(umask);
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });

  it('closes what an earlier start left open (PGlite makes its files 0666) to 0700/0600, and makes new files 0600', () => {
    process.umask(0);
    fs.mkdirSync(path.join(dataDir, 'pglite', 'base', '1'), { recursive: true, mode: 0o777 });
    fs.writeFileSync(path.join(dataDir, 'pglite', 'base', '1', '1259'), 'tenant project name', { mode: 0o666 });
    fs.writeFileSync(path.join(dataDir, 'secrets.key'), 'key', { mode: 0o644 });
    fs.mkdirSync(path.join(dataDir, 'sandboxes', '1', 'workspace'), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, 'sandboxes', '1', 'workspace', 'app.conf'), 'listen 80;', { mode: 0o644 });
    fs.symlinkSync('/etc/hostname', path.join(dataDir, 'link'));
    expect(asRoot ? asOtherUser(['cat', path.join(dataDir, 'pglite', 'base', '1', '1259')]).output : 'tenant project name').toContain('tenant project name');

    secureDataDir(dataDir);

    expect((fs.statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    const seen = modesUnder(dataDir);
    expect(seen).toMatchObject({
      pglite: '700',
      'pglite/base/1': '700',
      'pglite/base/1/1259': '600',
      'secrets.key': '600',
      sandboxes: '700',
      'sandboxes/1': '700',
    });
    // The workspace's own files keep their modes (a deploy copies them as they are); the folders above close them off.
    expect((fs.statSync(path.join(dataDir, 'sandboxes', '1', 'workspace', 'app.conf')).mode & 0o777).toString(8)).toBe('644');
    // The symlink's target is not touched.
    expect((fs.statSync('/etc/hostname').mode & 0o777).toString(8)).not.toBe('600');

    fs.writeFileSync(path.join(dataDir, 'new-file'), 'x');
    fs.mkdirSync(path.join(dataDir, 'new-dir'));
    expect((fs.statSync(path.join(dataDir, 'new-file')).mode & 0o777).toString(8)).toBe('600');
    expect((fs.statSync(path.join(dataDir, 'new-dir')).mode & 0o777).toString(8)).toBe('700');
  });

  it('keeps a new PGlite data directory private from the first start, a template unpacked into it included', async () => {
    secureDataDir(dataDir);
    const template = path.join(path.dirname(dataDir), 'template.tar.gz');
    fs.writeFileSync(template, Buffer.from(await (await pgliteTemplate()).arrayBuffer()));
    const database = await openDatabase({ dataDir, pgliteTemplate: template, migrationsDir: MIGRATIONS_DIR });
    try {
      const open = Object.entries(modesUnder(path.join(dataDir, 'pglite'))).filter(([, mode]) => mode !== '600' && mode !== '700');
      expect(open).toEqual([]);
    } finally {
      await database.close();
    }
  }, 60_000);

  (asRoot ? it : it.skip)('leaves another local user (nobody) nothing to list, read or write', () => {
    fs.mkdirSync(path.join(dataDir, 'pglite'), { recursive: true, mode: 0o777 });
    fs.writeFileSync(path.join(dataDir, 'pglite', 'catalog'), 'tenant project name', { mode: 0o666 });
    secureDataDir(dataDir);
    for (const argv of [
      ['ls', dataDir],
      ['cat', path.join(dataDir, 'pglite', 'catalog')],
      ['sh', '-c', `echo pwned >> ${path.join(dataDir, 'pglite', 'catalog')}`],
    ]) {
      const run = asOtherUser(argv);
      expect({ argv, denied: run.status !== 0 && /Permission denied/.test(run.output) }).toEqual({ argv, denied: true });
    }
    expect(fs.readFileSync(path.join(dataDir, 'pglite', 'catalog'), 'utf8')).toBe('tenant project name');
  });
});
