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

/** What the project spent on one day (UTC), for the cost-over-time chart. */
export const DailyCost = Type.Object({
  /** 'YYYY-MM-DD' */
  date: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }),
  /** Dollars. */
  cost: Type.Number({ minimum: 0 }),
});
export type DailyCost = Static<typeof DailyCost>;

/** One model call of the project: when, which agent asked, which model answered, and what it cost. */
export const TokenUsageTurn = Type.Object({
  at: Timestamp,
  agent: Type.String(),
  /** The model as it answered (`offline-planner` for the server's own planner, which is free). */
  model: Type.String(),
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  /** Dollars. */
  cost: Type.Number({ minimum: 0 }),
});
export type TokenUsageTurn = Static<typeof TokenUsageTurn>;

/** The token prices the server charges (its configuration), in dollars per million tokens. */
export const TokenRates = Type.Object({
  mode: Type.Union([Type.Literal('research_preview'), Type.Literal('regular')]),
  input_per_million: Type.Number({ minimum: 0 }),
  output_per_million: Type.Number({ minimum: 0 }),
});
export type TokenRates = Static<typeof TokenRates>;

/**
 * GET /api/projects/{id}/token-usage: `total_cost` in dollars (the same sum as /costs), the breakdown
 * by agent and model, the cost per day, the rates in force and the latest turns with their models.
 */
export const TokenUsageResponse = Type.Object({
  total_cost: Type.Number({ minimum: 0 }),
  breakdown: Type.Array(TokenUsageLine),
  daily: Type.Optional(Type.Array(DailyCost)),
  rates: Type.Optional(TokenRates),
  /** The latest model calls (at most TURNS_SHOWN), newest first, and how many there are in all. */
  turns: Type.Optional(Type.Array(TokenUsageTurn)),
  turn_count: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type TokenUsageResponse = Static<typeof TokenUsageResponse>;
