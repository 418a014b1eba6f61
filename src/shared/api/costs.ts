import { Type, type Static } from 'typebox';
import { Timestamp } from './common';

/**
 * GET /api/projects/{id}/costs, polled every 10 s. `total_cost` is a decimal string in dollars
 * (e.g. "0.01234567", exact from the database); `last_updated` is null before any spending.
 */
export const ProjectCostsResponse = Type.Object({
  total_cost: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }),
  last_updated: Type.Union([Timestamp, Type.Null()]),
});
export type ProjectCostsResponse = Static<typeof ProjectCostsResponse>;

/** One line of the token usage breakdown: what one agent spent on one model. */
export const TokenUsageLine = Type.Object({
  agent: Type.String(),
  model: Type.String(),
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  /** Dollars. */
  cost: Type.Number({ minimum: 0 }),
});
export type TokenUsageLine = Static<typeof TokenUsageLine>;

/** GET /api/projects/{id}/token-usage: `total_cost` in dollars, and the breakdown by agent and model. */
export const TokenUsageResponse = Type.Object({
  total_cost: Type.Number({ minimum: 0 }),
  breakdown: Type.Array(TokenUsageLine),
});
export type TokenUsageResponse = Static<typeof TokenUsageResponse>;
