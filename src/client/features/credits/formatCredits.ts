import { CREDIT_LIMITS } from '../../../shared/constants';

/** '$12.50': credits are shown in dollars with 2 decimals (part 1 section 9). */
export function formatCredits(dollars: number | null | undefined): string {
  const value = typeof dollars === 'number' && Number.isFinite(dollars) ? dollars : 0;
  const text = Math.abs(value).toFixed(CREDIT_LIMITS.balanceDecimals);
  return value < 0 && Number(text) !== 0 ? `-$${text}` : `$${text}`;
}

/** The amount input keeps only digits with at most one decimal point (part 1 section 5). */
export const isAmountInput = (text: string): boolean => new RegExp(CREDIT_LIMITS.amountInputPattern).test(text);
