import { guessLanguage } from '../../../src/server/services/repositories/repositorySource';

/** The main language comes from the weight of the source, not of saved pages, docs or styles. */
describe('guessLanguage', () => {
  it('a recipe app with megabytes of saved HTML pages in its test data and docs is Python', () => {
    expect(
      guessLanguage([
        { path: 'tests/data/html/pizza.html', size: 554_549 },
        { path: 'tests/data/html/noodles.html', size: 483_576 },
        { path: 'docs/docs/overrides/api.html', size: 361_275 },
        { path: 'mealie/app.py', size: 120_000 },
        { path: 'mealie/routes/recipes.py', size: 90_000 },
        { path: 'frontend/pages/index.vue', size: 80_000 },
        { path: 'frontend/assets/main.css', size: 300_000 },
      ]),
    ).toBe('Python');
  });

  it('markup is the language only when nothing else is there; vendored code never counts', () => {
    expect(guessLanguage([{ path: 'index.html', size: 5_000 }, { path: 'style.css', size: 9_000 }])).toBe('CSS');
    expect(guessLanguage([{ path: 'node_modules/x/index.js', size: 900_000 }, { path: 'main.go', size: 1_000 }])).toBe('Go');
    expect(guessLanguage([{ path: 'README', size: 10 }])).toBeNull();
  });
});
