import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { badRequest } from '../../errors';

const run = promisify(execFile);
const PEM = /^-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----\n[\s\S]+\n-----END \1PRIVATE KEY-----$/;

/**
 * A private SSH key as the sandbox's ssh reads it: line endings normalised and a final newline (ssh
 * refuses a key without one). `ssh-keygen -y` derives its public key, which proves it is a key ssh can use
 * without a passphrase (a step cannot type one); the value never reaches an error message.
 */
export async function checkedSshPrivateKey(name: string, value: string): Promise<string> {
  const key = value.replace(/\r\n?/g, '\n').trim();
  if (!PEM.test(key)) {
    throw badRequest(`${name} is not a private SSH key: paste the whole file, from "-----BEGIN OPENSSH PRIVATE KEY-----" to its END line`);
  }
  if (/^Proc-Type: 4,ENCRYPTED/m.test(key)) throw badRequest(`${name} is protected by a passphrase: deployment steps cannot type it; use a key without one`);
  const dir = await mkdtemp(join(tmpdir(), 'da-key-'));
  try {
    const file = join(dir, 'key');
    await writeFile(file, `${key}\n`, { mode: 0o600 });
    await run('ssh-keygen', ['-y', '-P', '', '-f', file], { timeout: 10_000 }).catch((error: NodeJS.ErrnoException & { stderr?: string }) => {
      if (error.code === 'ENOENT') return; // no ssh-keygen on this server: the format check above stands
      const reason = /passphrase|incorrect/i.test(error.stderr ?? '') ? 'is protected by a passphrase: deployment steps cannot type it; use a key without one' : 'cannot be read as a private SSH key';
      throw badRequest(`${name} ${reason}`);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return `${key}\n`;
}
