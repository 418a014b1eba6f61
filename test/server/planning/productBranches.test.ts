import { findBranches } from '../../eval/branches';

/**
 * Products are wired by catalogue data: no code in src/ decides something because a product is a
 * particular one (test/eval/branches.ts says what counts). A new branch fails here with its file and line.
 */
test('no branch on a product name is left in src/ (literals compared, switched on, looked up or passed)', () => {
  const found = findBranches().filter((b) => b.how !== 'pattern');
  expect(found.map((b) => `${b.file}:${b.line} ${b.how} ${b.name}`)).toEqual([]);
});
