import { refusalDetail, saveResultText } from '../../../src/client/features/planning/components/SecretsForm';
import {
  canConfirmRequirements,
  defaultBranch,
  filterRepositories,
  missingRequiredCount,
  permissionRequiredText,
  repositoryFetchErrorText,
  toEnvironmentConfigs,
  valuesToSave,
} from '../../../src/client/features/planning/planningRules';
import { REPOSITORY_ERRORS, SECRET_MESSAGES } from '../../../src/shared/constants';
import { makeRepository, makeSecret } from '../utils/planningServer';

describe('environment configs (part 1 section 5)', () => {
  it('drops blocks with both description and content blank and renames the rest environment1..n', () => {
    expect(
      toEnvironmentConfigs([
        { description: '  ', content: '' },
        { description: 'Production', content: 'A=1' },
        { description: '', content: '\n' },
        { description: '', content: 'B=2' },
      ]),
    ).toEqual([
      { name: 'environment1', description: 'Production', content: 'A=1' },
      { name: 'environment2', description: 'Environment configuration 2', content: 'B=2' },
    ]);
  });

  it('keeps one block when every block was blank', () => {
    expect(toEnvironmentConfigs([{ description: '', content: '' }, { description: ' ', content: ' ' }])).toEqual([
      { name: 'environment1', description: 'Environment configuration 1', content: '' },
    ]);
  });
});

describe('default branch', () => {
  it('prefers main, then master, then the first branch', () => {
    expect(defaultBranch([{ name: 'dev' }, { name: 'master' }, { name: 'main' }])).toBe('main');
    expect(defaultBranch([{ name: 'dev' }, { name: 'master' }])).toBe('master');
    expect(defaultBranch([{ name: 'dev' }, { name: 'release' }])).toBe('dev');
    expect(defaultBranch([])).toBeNull();
  });
});

describe('repository search', () => {
  const repositories = [
    makeRepository({ id: 1, name: 'shop-api', full_name: 'alice/shop-api', description: 'Orders service' }),
    makeRepository({ id: 2, name: 'infra', full_name: 'ACME/infra', description: null }),
    makeRepository({ id: 3, name: 'site', full_name: 'alice/site', description: 'Marketing PAGES' }),
  ];
  const ids = (query: string): number[] => filterRepositories(repositories, query).map((repository) => repository.id);

  it('is case-insensitive on name, full name and description', () => {
    expect(ids('SHOP')).toEqual([1]);
    expect(ids('acme/')).toEqual([2]);
    expect(ids('pages')).toEqual([3]);
    expect(ids('alice')).toEqual([1, 3]);
    expect(ids('  ')).toEqual([1, 2, 3]);
    expect(ids('nothing')).toEqual([]);
  });
});

describe('repository error texts (part 1 section 8)', () => {
  it('permission required: the server message or "No repositories found." plus the access hint', () => {
    expect(permissionRequiredText('Install the app on a repository.')).toBe(
      `Install the app on a repository. ${REPOSITORY_ERRORS.grantAccess}`,
    );
    expect(permissionRequiredText(null)).toBe(`${REPOSITORY_ERRORS.noRepositories} ${REPOSITORY_ERRORS.grantAccess}`);
  });

  it.each([
    [{ signedIn: false, status: null, message: 'x' }, REPOSITORY_ERRORS.notLoggedIn],
    [{ signedIn: true, status: 401, message: 'x' }, REPOSITORY_ERRORS.unauthorized],
    [{ signedIn: true, status: 403, message: 'x' }, REPOSITORY_ERRORS.forbidden],
    [{ signedIn: true, status: 404, message: 'x' }, REPOSITORY_ERRORS.notFound],
    [{ signedIn: true, status: 500, message: 'boom' }, 'Error: boom'],
  ])('%o → the prefix and %s', (input, reason) => {
    expect(repositoryFetchErrorText(input)).toBe(`${REPOSITORY_ERRORS.fetchPrefix} ${reason}`);
  });
});

describe('requirements confirm rule (part 1 section 4)', () => {
  it('needs requirements, ready_to_continue and no running generation', () => {
    expect(canConfirmRequirements({ content: 'Summary: x', ready_to_continue: true }, false)).toBe(true);
    expect(canConfirmRequirements({ content: 'Summary: x', ready_to_continue: true }, true)).toBe(false);
    expect(canConfirmRequirements({ content: 'Summary: x', ready_to_continue: false }, false)).toBe(false);
    expect(canConfirmRequirements({ content: '  ', ready_to_continue: true }, false)).toBe(false);
    expect(canConfirmRequirements(undefined, false)).toBe(false);
  });
});

describe('user secrets rules', () => {
  const secrets = [
    makeSecret({ name: 'DB_PASSWORD', required: true, provided: false }),
    makeSecret({ name: 'API_KEY', required: true, provided: true }),
    makeSecret({ name: 'SMTP_HOST', required: false, provided: false, secret_type: 'text' }),
    makeSecret({ name: 'GITHUB_TOKEN', required: true, provided: false }),
  ];

  it('counts required secrets not yet provided for the badge', () => {
    expect(missingRequiredCount(secrets)).toBe(2);
  });

  it('saves only non-blank typed values and never GITHUB_TOKEN', () => {
    expect(valuesToSave(secrets, { DB_PASSWORD: ' s3cret ', API_KEY: '   ', SMTP_HOST: '', GITHUB_TOKEN: 'x' })).toEqual([
      { name: 'DB_PASSWORD', value: ' s3cret ' },
    ]);
    expect(valuesToSave(secrets, {})).toEqual([]);
  });

  it('words the save result as the spec does', () => {
    expect(saveResultText(2, 0)).toBe(SECRET_MESSAGES.saved(2));
    expect(saveResultText(1, 2)).toBe(SECRET_MESSAGES.partiallySaved(1, 2));
    expect(saveResultText(0, 2)).toBe(SECRET_MESSAGES.failed);
  });

  it("reads a refused save's detail, and nothing from an answer without one", () => {
    expect(refusalDetail({ status: 400, data: { detail: 'PATH cannot be a User Secret: …' } })).toBe('PATH cannot be a User Secret: …');
    for (const reason of [undefined, null, 'x', { status: 'FETCH_ERROR', error: 'down' }, { data: { detail: 3 } }, { data: null }]) expect(refusalDetail(reason)).toBeUndefined();
  });
});
