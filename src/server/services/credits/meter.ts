import { and, eq } from 'drizzle-orm';
import type { PricingConfig } from '../../config';
import { projects, tokenUsage } from '../../db/schema';
import { badRequest, notFound, paymentRequired } from '../../errors';
import type { TokenRates } from '../../../shared/api/costs';
import { CREDIT_ERRORS } from '../../../shared/constants/credits';
import type { CostsService } from '../costs/costsService';
import type { CreditsLedger } from './ledger';
import { perMillionToUnits, tokensCostUnits, unitsToDecimal } from './money';
import { agentName } from '../../../shared/constants/agents';
import { isFreeModel } from '../../../shared/constants/costs';

/** One model call, as the agent that made it reports it. */
export interface ModelUsage {
  /** Our installation row id (`authOf(request).installationId`), the owner of the project. */
  installationId: number;
  projectId: number;
  /** The stage agent, e.g. `requirementsAgent`. */
  agent: string;
  /** The model name as the provider reports it, e.g. `gpt-4o-mini` or `offline-planner`. */
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** The call's hold (assertCanSpend, holdNext): settled to exactly the cost. */
  holdId?: number;
}

export interface MeteredCall {
  tokenUsageId: number;
  /** What the call cost, in dollars, as stored: "0.00012500". */
  cost: string;
}

const MAX_TOKENS_PER_CALL = 100_000_000;

/**
 * What a hold sets aside before a model call: the price of a large planning call (8,000 input and
 * 2,000 output tokens; $0.08 at the research preview's prices). Concurrent calls are admitted only
 * while the balance covers the holds of the calls already running.
 */
export const HOLD_TOKENS = { input: 8_000, output: 2_000 } as const;

/**
 * The output a call's hold allows for: models here are called without an output limit, and a long plan
 * runs to a few thousand tokens. A call writing more than this can overdraw by the difference.
 */
export const OUTPUT_ALLOWANCE_TOKENS = 4_000;

/**
 * Tokens in a prompt of this many UTF-8 bytes, counted high: English runs ~4 bytes a token, code and
 * JSON ~3; a hold too large only refuses a call early, one too small lets the balance go further below zero.
 */
export const tokensOfBytes = (bytes: number): number => Math.ceil(bytes / 3);

function checkTokens(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_TOKENS_PER_CALL) {
    throw badRequest(`${name} must be a whole number of tokens between 0 and ${MAX_TOKENS_PER_CALL}`);
  }
}

/**
 * Prices model calls and charges them to the installation's credits.
 *
 * @example
 * ```ts
 * // Before an agent turn starts (a turn already running is never cut off):
 * await app.services.meter.assertCanSpend({ installationId });
 * // After each model call, with the usage the model reported:
 * await app.services.meter.record({
 *   installationId, projectId, agent: 'requirementsAgent', model: 'gpt-4o-mini', inputTokens: 1200, outputTokens: 350,
 * });
 * ```
 */
export function createMeter({
  ledger,
  pricing,
  costs,
}: {
  ledger: Pick<CreditsLedger, 'transaction' | 'lock' | 'settle' | 'hold' | 'release'>;
  pricing: PricingConfig;
  /** The project cost poll's snapshots, dropped after each recorded call. */
  costs: Pick<CostsService, 'invalidate'>;
}) {
  /** Cost in 10⁻⁸ dollar units, rounded half up once; a free model's calls (FREE_MODELS) cost nothing. */
  function costUnits(inputTokens: number, outputTokens: number, model?: string): bigint {
    if (model !== undefined && isFreeModel(model)) return 0n;
    if (pricing.mode === 'regular') return perMillionToUnits(tokensCostUnits(inputTokens + outputTokens, pricing.perMillionUsd));
    return perMillionToUnits(
      tokensCostUnits(inputTokens, pricing.inputPerMillionUsd) + tokensCostUnits(outputTokens, pricing.outputPerMillionUsd),
    );
  }

  return {
    /** The configured prices (the pricing page shows the same ones). */
    pricing,

    /** The prices as the API shows them (dollars per million tokens). */
    rates(): TokenRates {
      return pricing.mode === 'regular'
        ? { mode: 'regular', input_per_million: pricing.perMillionUsd, output_per_million: pricing.perMillionUsd }
        : { mode: 'research_preview', input_per_million: pricing.inputPerMillionUsd, output_per_million: pricing.outputPerMillionUsd };
    },

    /** What a call with these token counts costs, in dollars with 8 decimals ("0.00017500"). */
    price(inputTokens: number, outputTokens: number): string {
      checkTokens('inputTokens', inputTokens);
      checkTokens('outputTokens', outputTokens);
      return unitsToDecimal(costUnits(inputTokens, outputTokens));
    },

    /**
     * Records one model call: in one database transaction, the `token_usage` row with its cost (what
     * GET /api/projects/{id}/costs sums) and a completed `use` transaction of exactly that cost (the
     * turn's hold, settled, when it has one), so the
     * balance falls by exactly what the project costs. Never refuses for lack of credits: the call has
     * happened, and a turn already running finishes; the balance may go below zero, and the next
     * `assertCanSpend` refuses. Once the transaction has ended, the project's cost and the installation's
     * balance polls answer anew.
     *
     * @throws HttpError 404 when the project is not the installation's; 400 for negative or fractional token counts.
     */
    async record(usage: ModelUsage): Promise<MeteredCall> {
      checkTokens('inputTokens', usage.inputTokens);
      checkTokens('outputTokens', usage.outputTokens);
      const units = costUnits(usage.inputTokens, usage.outputTokens, usage.model);
      const cost = unitsToDecimal(units);
      try {
        return await ledger.transaction(async (tx) => {
          const [project] = await tx
            .select({ id: projects.id })
            .from(projects)
            .where(and(eq(projects.id, usage.projectId), eq(projects.installationId, usage.installationId)));
          if (!project) throw notFound('Project not found');
          // Lock first: the balance row is the one lock every writer of this installation takes.
          await ledger.lock(tx, usage.installationId);
          const [row] = await tx
            .insert(tokenUsage)
            .values({
              projectId: usage.projectId,
              agent: usage.agent,
              model: usage.model,
              inputTokens: usage.inputTokens,
              outputTokens: usage.outputTokens,
              cost,
            })
            .returning({ id: tokenUsage.id });
          await ledger.settle(tx, {
            installationId: usage.installationId,
            type: 'use',
            amountUnits: units,
            paymentMethod: 'usage',
            description: `${agentName(usage.agent)} · ${usage.model}: ${usage.inputTokens} input and ${usage.outputTokens} output tokens (project ${usage.projectId})`,
            tokenUsageId: row!.id,
          }, usage.holdId);
          return { tokenUsageId: row!.id, cost };
        });
      } finally {
        costs.invalidate(usage.projectId);
      }
    },

    /**
     * Reserves before an agent turn of `model` (a free model's needs nothing): refuses when the installation's balance, less what the turns
     * already running hold, is at or below zero; otherwise holds one large call's price (HOLD_TOKENS),
     * which the turn's first `record` settles to the real cost. So 50 concurrent turns at $0.005 left
     * run one call, not 50: the overdraft stays within one call's worth.
     *
     * @throws HttpError 402 with `CREDIT_ERRORS.outOfCredits`, a text the chat shows as the reply; it
     * tells the user to add credits with 'View & Add Credits'.
     */
    async assertCanSpend({ installationId, model, inputTokens }: { installationId: number; model?: string; inputTokens?: number }): Promise<number | undefined> {
      // A turn of a free model spends nothing: it needs no credit and holds none.
      if (model !== undefined && isFreeModel(model)) return undefined;
      const units = inputTokens === undefined ? costUnits(HOLD_TOKENS.input, HOLD_TOKENS.output) : costUnits(inputTokens, OUTPUT_ALLOWANCE_TOKENS);
      const held = await ledger.transaction((tx) => ledger.hold(tx, installationId, units));
      if (held === null) throw paymentRequired(CREDIT_ERRORS.outOfCredits);
      return held;
    },

    /**
     * Holds for the next call of a running turn, sized from its prompt (`promptBytes`: the system prompt, the
     * thread as it now stands and the tools) and the output allowance; `replace` is the turn's hold still live, resized rather than added to. Refused (402) like a
     * new turn when the balance less the other holds is spent: the turn then ends before that call.
     */
    async holdNext({ installationId, model, promptBytes, replace }: { installationId: number; model: string; promptBytes: number; replace?: number }): Promise<number | undefined> {
      if (isFreeModel(model)) return undefined;
      const units = costUnits(tokensOfBytes(promptBytes), OUTPUT_ALLOWANCE_TOKENS);
      const held = await ledger.transaction((tx) => ledger.hold(tx, installationId, units, replace));
      if (held === null) throw paymentRequired(CREDIT_ERRORS.outOfCredits);
      return held;
    },

    /** Drops a turn's hold that no call will settle (the turn ended). */
    release: (installationId: number, holdId: number): Promise<void> => ledger.release(installationId, holdId),
  };
}

export type Meter = ReturnType<typeof createMeter>;
