/**
 * Exact money arithmetic. The database keeps dollars as numeric(18, 8); here they are BigInt counts of
 * 10⁻⁸ dollars ("units"), so that a thousand tiny model calls add up to exactly what the database sums.
 */

export const UNITS_PER_DOLLAR = 100_000_000n;
const UNITS_PER_CENT = 1_000_000n;

/** Units of a decimal dollar amount: a numeric string from the database ("4.99000000", "-0.5") or a number from configuration. */
export function toUnits(dollars: string | number): bigint {
  const text = typeof dollars === 'number' ? dollars.toFixed(8) : dollars.trim();
  const match = /^(-)?(\d*)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[2] === '' && !match[3])) throw new Error(`not a dollar amount: ${String(dollars)}`);
  const [, sign, whole = '', fraction = ''] = match;
  const units = BigInt(whole || '0') * UNITS_PER_DOLLAR + BigInt((fraction + '00000000').slice(0, 8));
  return sign ? -units : units;
}

/** "12.34500000": the form the numeric(18, 8) columns take. */
export function unitsToDecimal(units: bigint): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = abs / UNITS_PER_DOLLAR;
  const fraction = (abs % UNITS_PER_DOLLAR).toString().padStart(8, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

export const centsToUnits = (cents: number): bigint => BigInt(cents) * UNITS_PER_CENT;

/** Dollars as a JSON number (the API's `credits_balance`, transaction `amount`). */
export const unitsToNumber = (units: bigint): number => Number(unitsToDecimal(units));

/** "25.00": a whole-cent amount as the payment success page shows it. */
export const centsToDollarText = (cents: number): string => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/**
 * Units of `tokens` at `dollarsPerMillion`, rounded half up to a unit (10⁻⁸ dollar). Prices are read
 * with at most 8 decimals, so the product is exact before the one rounding.
 */
export function tokensCostUnits(tokens: number, dollarsPerMillion: number): bigint {
  return BigInt(tokens) * toUnits(dollarsPerMillion);
}

/** Divides a sum of `tokensCostUnits` by one million tokens, rounding half up. */
export function perMillionToUnits(sum: bigint): bigint {
  return (sum + 500_000n) / 1_000_000n;
}
