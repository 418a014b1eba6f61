import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * AES-256-GCM for user secrets: a random 12-byte IV per value, AAD = project id + name so that a value
 * cannot be moved to another project or name. The key is ENCRYPTION_KEY (hex or base64, 32 bytes) or a
 * key file generated once in DATA_DIR with mode 0600.
 */
export interface SecretBox {
  seal(projectId: number, name: string, value: string): { ciphertext: string; iv: string };
  open(projectId: number, name: string, sealed: { ciphertext: string; iv: string }): string;
}

export const KEY_FILE_NAME = 'secrets.key';

export function loadSecretKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return /^[A-Fa-f0-9]{64}$/.test(configured) ? Buffer.from(configured, 'hex') : Buffer.from(configured, 'base64');
  const file = path.join(dataDir, KEY_FILE_NAME);
  try {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key`);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadSecretKey(undefined, dataDir);
    throw err;
  }
}

const aad = (projectId: number, name: string): Buffer => Buffer.from(`${projectId}\u0000${name}`, 'utf8');

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the user-secret key must be 32 bytes');
  return {
    seal(projectId, name, value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(aad(projectId, name));
      const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return { ciphertext: body.toString('base64'), iv: iv.toString('base64') };
    },
    open(projectId, name, sealed) {
      const body = Buffer.from(sealed.ciphertext, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(aad(projectId, name));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}
