/**
 * Project costs, token prices and the pricing page's example costs (part 2 sections 2, 4, 7, 9). The cost
 * polling interval and decimals are in foundation.ts (POLLING.projectCostsMs, COST_DECIMALS).
 */

export const COSTS = {
  /** `returnTo` query value of the costs page that leads back to the project home. */
  returnToHome: 'home',
  totalCost: 'Total Project Cost',
  lastUpdated: 'Last Updated',
  intelligenceCosts: 'Intelligence Costs',
  aboutCosts: 'About costs',
  viewPricing: 'View Pricing',
  title: 'Project Costs',
  back: 'Back',
  costOverTime: 'Cost over time',
  noUsage: 'No model calls yet: this project has cost nothing so far.',
  never: 'Never',
  loadFailed: 'Failed to load project costs',
  /** The list of model calls, newest first, each with the model that answered it. */
  turns: 'Turns and the model that answered each',
  turnsNote: (shown: number, total: number): string => (shown < total ? `The latest ${shown} of ${total} model calls.` : `All ${total} model calls.`),
  free: 'free',
  /** The about-cost text of the costs page. */
  aboutCostsText:
    'The project cost is what the AI agents of this project have spent on model calls, priced per token. Each call is taken from your credits as it happens, so your balance falls by exactly what your projects cost. Cloud resources the agents create are billed by your cloud provider, not here.',
  researchPreviewNotice: (input: number, output: number): string =>
    `Research preview pricing: $${input} per million input tokens and $${output} per million output tokens.`,
  regularNotice: (perMillion: number): string => `Pricing: $${perMillion} per million tokens of any kind.`,
  /** Named in part 2 section 9; the rate is TOKEN_PRICES.regular (below). */
  regularAfterPreview: (): string =>
    `Regular pricing after the research preview: $${TOKEN_PRICES.regular.perMillion} per million tokens of any kind.`,
} as const;

/** Token prices in US dollars per million tokens. */
export const TOKEN_PRICES = {
  /** Research-preview pricing, in force now. */
  researchPreview: { inputPerMillion: 5, outputPerMillion: 20 },
  /** Regular pricing after the preview ends (no date known): one rate for any token. */
  regular: { perMillion: 30 },
} as const;

/** The model name the offline planner answers under (no language model configured: the server's own planner). */
export const OFFLINE_PLANNER_MODEL = 'offline-planner';

/**
 * Models whose turns cost nothing, with the reason the pricing and costs pages state. The meter prices their
 * calls at $0 and admits their turns at any balance; every other model is charged at the token prices.
 */
export const FREE_MODELS: Readonly<Record<string, string>> = {
  [OFFLINE_PLANNER_MODEL]: 'Turns answered by the offline planner (used when no language model is configured) run on this server and cost nothing.',
};

export const isFreeModel = (model: string): boolean => Object.hasOwn(FREE_MODELS, model);

/** Research-preview cost in dollars of one model call. */
export const tokenCostUsd = (inputTokens: number, outputTokens: number): number =>
  (inputTokens * TOKEN_PRICES.researchPreview.inputPerMillion +
    outputTokens * TOKEN_PRICES.researchPreview.outputPerMillion) /
  1_000_000;

export type ExampleCost = { task: string; time: string; cost: string };

/** The pricing page's 'Example Costs' table. */
export const EXAMPLE_COSTS: readonly ExampleCost[] = [
  { task: 'Basic VPS on a cloud droplet provider', time: '14 mins', cost: '$2.00' },
  { task: 'VPS with MySQL', time: '25 mins', cost: '$4.00' },
  { task: 'VPS with PostgreSQL', time: '32 mins', cost: '$4.50' },
  { task: 'ELK stack on VPS', time: '40 mins', cost: '$7.00' },
  { task: 'EC2 instance with SSH access', time: '16 mins', cost: '$3.60' },
  { task: 'VPS with Prometheus/Grafana', time: '24 mins', cost: '$4.00' },
];

export const PRICING_TEXT = {
  currentRates: 'Current Rates',
  exampleCosts: 'Example Costs',
  researchPreview: 'Research preview',
  regularPricing: 'Regular pricing after the research preview',
  quickInfo: ['Pay per use', 'Real-time tracking', 'No hidden fees'],
} as const;
