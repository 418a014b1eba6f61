/** One line of the bench's summary: measure → this project → reference → ratio → budget. */
export interface SummaryRow {
  measure: string;
  project: string;
  reference: string;
  ratio: number | null;
  budget: string;
  met: boolean;
}

const rows: SummaryRow[] = [];

export function addRow(row: SummaryRow): void {
  rows.push(row);
}

/** Prints the table; answers whether every budget was met. */
export function printSummary(): boolean {
  const head = ['measure', 'this project', 'reference', 'ratio', 'budget', ''];
  const table = rows.map((r) => [r.measure, r.project, r.reference, r.ratio === null ? '—' : r.ratio.toFixed(2), r.budget, r.met ? 'met' : 'MISSED']);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  console.log(`\nSummary\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}`);
  for (const t of table) console.log(line(t));
  return rows.every((r) => r.met);
}
