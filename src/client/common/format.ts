import { COST_DECIMALS } from '../../shared/constants';

/** 'Jan 5, 2025' in the reader's locale; the raw text when the timestamp does not parse. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** 'Jan 5, 2025, 3:04 PM' in the reader's locale and time zone; the raw text when it does not parse. */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
}

/** '$0.0123'. The server sends the cost as a decimal string; anything unparsable counts as zero. */
export function formatCost(total: string | number | null | undefined): string {
  const value = typeof total === 'number' ? total : Number.parseFloat(total ?? '');
  return `$${(Number.isFinite(value) ? value : 0).toFixed(COST_DECIMALS)}`;
}
