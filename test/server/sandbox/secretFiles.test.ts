import { isSecretPath, secretFilter } from '../../../src/server/sandbox/workspaceLayout';

describe('files that hold secrets (step history and downloads)', () => {
  it.each(['.env', 'stack/.env', 'stack/.env.production', 'certs/site.key', 'tls/fullchain.pem', 'ssh-keys/deploy_key', 'a/ssh-keys/known_hosts', 'terraform/terraform.tfstate', 'terraform/terraform.tfstate.backup', 'terraform/.terraform/providers/x', 'prod.tfvars', '.ssh/id_ed25519', '.aws/credentials'])(
    'leaves out %s',
    (path) => expect(isSecretPath(path)).toBe(true),
  );

  it.each(['stack/.env.example', '.env.sample', 'stack/docker-compose.yml', 'id_ed25519.pub', 'ssh-keys', 'README.md', 'terraform/main.tf', 'environment.md'])('keeps %s', (path) =>
    expect(isSecretPath(path)).toBe(false),
  );

  it('judges a folder download by the workspace path, and keeps everything when secrets are asked for', () => {
    expect(secretFilter('ssh-keys')!('deploy_key')).toBe(true);
    expect(secretFilter('stack')!('docker-compose.yml')).toBe(false);
    expect(secretFilter('stack', true)).toBeUndefined();
  });
});
