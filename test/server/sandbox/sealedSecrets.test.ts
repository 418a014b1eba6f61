import { HttpError } from '../../../src/server/errors';
import { documentRedactor, REDACTED, textRedactor } from '../../../src/server/sandbox/redactor';
import { openSecrets, sealedReference, sealSecrets } from '../../../src/server/sandbox/sealedSecrets';

const values = { DB_PASSWORD: 'pg-Secret-42', DB_PASSWORD_LONG: 'pg-Secret-42-and-more', PIN: '123' };

describe('sealed secrets: what a stored command or plan holds instead of a value', () => {
  test('every literal value becomes a reference by name, the longest value first, and opens back byte for byte', () => {
    const command = `psql "postgres://app:pg-Secret-42@db/app" && echo 'pg-Secret-42-and-more' | wc -c # pin 123`;
    const sealed = sealSecrets(command, values);
    expect(sealed).toBe(`psql "postgres://app:${sealedReference('DB_PASSWORD')}@db/app" && echo '${sealedReference('DB_PASSWORD_LONG')}' | wc -c # pin 123`);
    expect(sealed).not.toContain('pg-Secret-42');
    expect(openSecrets(sealed, values)).toBe(command);
  });

  test('sealing twice changes nothing; a text without values is left as it is', () => {
    const once = sealSecrets('echo pg-Secret-42', values);
    expect(sealSecrets(once, values)).toBe(once);
    expect(sealSecrets('ls -la', values)).toBe('ls -la');
  });

  test('a reference opens into the current value; a secret that is gone is a 400 naming it', () => {
    const sealed = sealSecrets('echo pg-Secret-42', values);
    expect(openSecrets(sealed, { DB_PASSWORD: 'rotated-value' })).toBe('echo rotated-value');
    let error: unknown;
    try {
      openSecrets(sealed, {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ statusCode: 400, message: 'User Secret DB_PASSWORD is not set: add it under User Secrets, then re-execute this step' });
  });

  test('people see a reference as the value would be shown: redacted', () => {
    const sealed = sealSecrets('echo pg-Secret-42', values);
    expect(textRedactor([])(sealed)).toBe(`echo ${REDACTED}`);
    expect(textRedactor(['other-secret'])(`${sealed} other-secret`)).toBe(`echo ${REDACTED} ${REDACTED}`);
  });
});

describe('documentRedactor: a plan as people read it', () => {
  test('blanks whole values and sealed references, not the words a secret happens to contain', () => {
    const redact = documentRedactor(['e2e-postgres-password']);
    const plan = `flowchart LR\n  postgres[("PostgreSQL")]\npassword: e2e-postgres-password, sealed: ${sealSecrets('x e2e-postgres-password', { PG: 'e2e-postgres-password' })}`;
    expect(redact(plan)).toBe(`flowchart LR\n  postgres[("PostgreSQL")]\npassword: ${REDACTED}, sealed: x ${REDACTED}`);
  });
});
