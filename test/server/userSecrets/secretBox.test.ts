import { randomBytes } from 'node:crypto';
import { createSecretBox } from '../../../src/server/services/userSecrets/secretBox';

describe('user-secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('opens what it sealed for the same project and name', () => {
    const sealed = box.seal(7, 'API_TOKEN', 'canary-S3cr3t');
    expect(sealed.ciphertext).not.toContain('canary');
    expect(box.open(7, 'API_TOKEN', sealed)).toBe('canary-S3cr3t');
  });

  it('refuses a value moved to another project (the AAD binds it to its project)', () => {
    const sealed = box.seal(7, 'API_TOKEN', 'canary-S3cr3t');
    expect(() => box.open(8, 'API_TOKEN', sealed)).toThrow(/authenticate/);
    expect(() => box.open(70, 'API_TOKEN', sealed)).toThrow(/authenticate/);
  });

  it('refuses a value moved to another name, or sealed under another key', () => {
    const sealed = box.seal(7, 'API_TOKEN', 'canary-S3cr3t');
    expect(() => box.open(7, 'DB_PASSWORD', sealed)).toThrow(/authenticate/);
    expect(() => createSecretBox(randomBytes(32)).open(7, 'API_TOKEN', sealed)).toThrow(/authenticate/);
  });
});
