const rules = new Intl.PluralRules('en-US');

/**
 * '1 minute', '2 minutes', '0 secrets': a count with its noun in the form English uses for it (the
 * plural rules of the runtime, not a `=== 1` at every call site). `plural` defaults to `one` + 's'.
 *
 * @example countOf(1, 'secret') // '1 secret'
 */
export function countOf(n: number, one: string, plural = `${one}s`): string {
  return `${n} ${rules.select(n) === 'one' ? one : plural}`;
}
