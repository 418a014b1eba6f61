import { and, asc, desc, eq, gt, inArray, lte, ne, not, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { creditAccounts, creditTransactions } from '../../db/schema';
import type { CreditsResponse, Transaction } from '../../../shared/api/credits';
import type { TransactionStatusName, TransactionTypeName } from '../../../shared/constants/credits';
import type { EventBus } from '../events/eventBus';
import { createVersionedSnapshots, sharedOn, type SnapshotSource } from '../snapshots/versionedSnapshots';
import { toUnits, unitsToDecimal, unitsToNumber } from './money';

/** 'signup' (the starting credit), 'local' (test checkout), 'dodo', 'usage' (model calls). */
export type PaymentMethod = 'signup' | 'local' | 'dodo' | 'usage';

export interface LedgerEntry {
  installationId: number;
  type: TransactionTypeName;
  /** Dollars in 10⁻⁸ units, never negative: the type gives the sign. */
  amountUnits: bigint;
  paymentMethod: PaymentMethod;
  description?: string;
  purchaseId?: string;
  tokenUsageId?: number;
  /** The provider's id of what this row records; a second row with the same id is refused. */
  externalId?: string;
}

/** The most transactions GET /api/user/transactions lists (newest first). */
export const TRANSACTION_LIST_LIMIT = 200;

/**
 * A hold is a pending `use` row paid by 'usage': credit set aside for a model call about to run,
 * turned into the call's real charge when it is recorded. It never shows in the history, and a hold
 * whose call never came (the turn failed before any model call) stops counting after this long.
 */
export const HOLD_TTL_MS = 10 * 60_000;
const isHold = and(eq(creditTransactions.status, 'pending'), eq(creditTransactions.paymentMethod, 'usage'), eq(creditTransactions.type, 'use'));

/** How a completed row of `type` moves the balance. */
export const signedUnits = (type: TransactionTypeName, units: bigint): bigint => (type === 'add' ? units : -units);

const SIGNUP_DESCRIPTION = 'Sign-up credit';

type TransactionRow = typeof creditTransactions.$inferSelect;

const toTransaction = (row: TransactionRow): Transaction => ({
  id: row.id,
  transaction_type: row.type as TransactionTypeName,
  amount: unitsToNumber(toUnits(row.amount)),
  payment_method: row.paymentMethod,
  status: row.status as TransactionStatusName,
  created_at: row.createdAt.toISOString(),
  ...(row.description ? { description: row.description } : {}),
});

/**
 * The credit ledger of each installation. Credits belong to the installation rather than the user:
 * projects, and so every model call that spends credits, belong to the installation, and a GitHub
 * organisation's installation is shared by its members, who should draw on one balance instead of each
 * member's own. The sign-up credit is therefore granted once per installation.
 *
 * Every change of balance is a `credit_transactions` row. The balance row is locked
 * (`SELECT … FOR UPDATE`) before any row that counts is written or completed, and the cached balance
 * moves in the same transaction, so `balance == Σ completed rows` holds under concurrent writers on
 * PostgreSQL (row lock) and PGlite (one connection; transactions run one at a time).
 *
 * The balance poll (`GET /api/user/credits`, every open tab every 10 s) is answered from a snapshot per
 * installation. Every ledger write runs in `ledger.transaction`, which drops the snapshots of the
 * balances it moved once the transaction has ended: after the commit, never before, or a poll in between
 * would read and keep the old balance.
 */
export function createCreditsLedger({ db, signupCreditUsd, events }: { db: Db; signupCreditUsd: number; events?: EventBus<unknown> }) {
  const signupUnits = toUnits(signupCreditUsd);
  /** The installations whose balance each open `ledger.transaction` has moved. */
  const moved = new WeakMap<Tx, Set<number>>();
  const balances = createVersionedSnapshots<number, CreditsResponse>({
    load: async (installationId) => {
      const balance = toUnits(await readBalance(installationId));
      const test = await testCreditUnits(installationId);
      // Spending takes from the whole balance: at most the smaller of the two is test credit.
      const shown = test < balance ? test : balance;
      return { credits_balance: unitsToNumber(balance), ...(shown > 0n ? { test_credits: unitsToNumber(shown) } : {}) };
    },
    ...sharedOn(events, 'snapshots.credits'),
  });

  /** The set to note moved balances in; a write outside `ledger.transaction` is a programming error. */
  function movedIn(tx: Tx): Set<number> {
    const set = moved.get(tx);
    if (!set) throw new Error('ledger writes run in ledger.transaction(...), which announces the balances they move');
    return set;
  }

  /**
   * Creates the account on first sight with its sign-up credit. Concurrent first calls are safe: the
   * loser of the primary-key race waits for the winner's commit, then inserts nothing.
   */
  async function ensureAccount(tx: Tx, installationId: number): Promise<void> {
    const created = await tx
      .insert(creditAccounts)
      .values({ installationId, balance: unitsToDecimal(signupUnits) })
      .onConflictDoNothing()
      .returning({ installationId: creditAccounts.installationId });
    if (created.length === 0 || signupUnits === 0n) return;
    await tx.insert(creditTransactions).values({
      installationId,
      type: 'add',
      amount: unitsToDecimal(signupUnits),
      status: 'completed',
      paymentMethod: 'signup',
      description: SIGNUP_DESCRIPTION,
    });
  }

  /** Locks the installation's balance row until the transaction ends and answers the balance in units. */
  async function lock(tx: Tx, installationId: number): Promise<bigint> {
    await ensureAccount(tx, installationId);
    const [row] = await tx
      .select({ balance: creditAccounts.balance })
      .from(creditAccounts)
      .where(eq(creditAccounts.installationId, installationId))
      .for('update');
    return toUnits(row!.balance);
  }

  async function move(tx: Tx, installationId: number, deltaUnits: bigint): Promise<void> {
    if (deltaUnits === 0n) return;
    movedIn(tx).add(installationId);
    await tx
      .update(creditAccounts)
      .set({ balance: sql`${creditAccounts.balance} + ${unitsToDecimal(deltaUnits)}::numeric`, updatedAt: new Date() })
      .where(eq(creditAccounts.installationId, installationId));
  }

  /** Polled every 10 s: a plain read, except the very first time, which creates the account. */
  /** What the local test checkout added (completed 'add' rows paid by 'local'), in units. */
  async function testCreditUnits(installationId: number): Promise<bigint> {
    const [row] = await db
      .select({ total: sql<string>`coalesce(sum(${creditTransactions.amount}), 0)` })
      .from(creditTransactions)
      .where(
        and(
          eq(creditTransactions.installationId, installationId),
          eq(creditTransactions.type, 'add'),
          eq(creditTransactions.status, 'completed'),
          eq(creditTransactions.paymentMethod, 'local'),
        ),
      );
    return toUnits(String(row?.total ?? '0'));
  }

  async function readBalance(installationId: number): Promise<string> {
    const read = async (): Promise<string | undefined> =>
      (await db.select({ balance: creditAccounts.balance }).from(creditAccounts).where(eq(creditAccounts.installationId, installationId)))[0]
        ?.balance;
    const balance = await read();
    if (balance !== undefined) return balance;
    await db.transaction((tx) => ensureAccount(tx, installationId));
    return (await read()) ?? '0';
  }

  /** The columns a ledger row takes from its entry, completed or pending. */
  const rowOf = (entry: LedgerEntry, status: 'completed' | 'pending') => ({
    installationId: entry.installationId,
    type: entry.type,
    amount: unitsToDecimal(entry.amountUnits),
    status,
    paymentMethod: entry.paymentMethod,
    description: entry.description ?? null,
    purchaseId: entry.purchaseId ?? null,
  });

  /**
   * Writes a completed row and moves the balance by it. Answers null, writing nothing, when a row with
   * the same `externalId` exists already. Locks the account itself.
   */
  async function post(tx: Tx, entry: LedgerEntry): Promise<{ id: number } | null> {
    movedIn(tx);
    await lock(tx, entry.installationId);
    const [row] = await tx
      .insert(creditTransactions)
      .values({ ...rowOf(entry, 'completed'), tokenUsageId: entry.tokenUsageId ?? null, externalId: entry.externalId ?? null })
      .onConflictDoNothing()
      .returning({ id: creditTransactions.id });
    if (!row) return null;
    await move(tx, entry.installationId, signedUnits(entry.type, entry.amountUnits));
    return row;
  }

  return {
    lock,

    /**
     * Runs `work` in one database transaction, the only way to write the ledger. Once it has ended
     * (committed, or failed in any way) the balance snapshots of the installations it moved are dropped.
     */
    async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
      const touched = new Set<number>();
      try {
        return await db.transaction((tx) => {
          moved.set(tx, touched);
          return work(tx);
        });
      } finally {
        for (const installationId of touched) balances.invalidate(installationId);
      }
    },

    /** The balance poll's snapshots by installation, `{ credits_balance }`, from memory until a ledger write moves one. */
    balances: { get: balances.get, peek: balances.peek } satisfies SnapshotSource<number, CreditsResponse>,

    /** The balance in dollars, creating the account (with its sign-up credit) on first call. */
    async balance(installationId: number): Promise<number> {
      return unitsToNumber(toUnits(await readBalance(installationId)));
    },

    /** Newest first, at most TRANSACTION_LIST_LIMIT rows. */
    async transactions(installationId: number): Promise<Transaction[]> {
      await readBalance(installationId);
      const rows = await db
        .select()
        .from(creditTransactions)
        .where(and(eq(creditTransactions.installationId, installationId), not(isHold!)))
        .orderBy(desc(creditTransactions.id))
        .limit(TRANSACTION_LIST_LIMIT);
      return rows.map(toTransaction);
    },

    post,

    /**
     * Sets `units` aside for a model call when the balance less the other live holds is above zero, and
     * answers the hold's id (null when refused). Under the balance row's lock, so concurrent callers see
     * each other's holds: at most one call's worth can be spent beyond the balance. `replace` resizes a
     * live hold of the caller's (the next call of a turn) instead of adding one. Drops expired holds.
     */
    async hold(tx: Tx, installationId: number, units: bigint, replace?: number): Promise<number | null> {
      movedIn(tx);
      const balance = await lock(tx, installationId);
      const expiry = new Date(Date.now() - HOLD_TTL_MS);
      const mine = and(eq(creditTransactions.installationId, installationId), isHold);
      await tx.delete(creditTransactions).where(and(mine, lte(creditTransactions.createdAt, expiry)));
      const others = replace === undefined ? mine : and(mine, ne(creditTransactions.id, replace));
      const [held] = await tx
        .select({ total: sql<string>`coalesce(sum(${creditTransactions.amount}), 0)` })
        .from(creditTransactions)
        .where(others);
      if (balance - toUnits(String(held?.total ?? '0')) <= 0n) return null;
      if (replace !== undefined) {
        const [resized] = await tx
          .update(creditTransactions)
          .set({ amount: unitsToDecimal(units), createdAt: new Date() })
          .where(and(mine, eq(creditTransactions.id, replace)))
          .returning({ id: creditTransactions.id });
        if (resized) return resized.id;
      }
      const [row] = await tx
        .insert(creditTransactions)
        .values({ installationId, type: 'use', amount: unitsToDecimal(units), status: 'pending', paymentMethod: 'usage', description: 'Held for a model call' })
        .returning({ id: creditTransactions.id });
      return row!.id;
    },

    /** Drops a hold whose call will not come (the turn ended); a hold already settled is left alone. */
    async release(installationId: number, holdId: number): Promise<void> {
      await db.delete(creditTransactions).where(and(eq(creditTransactions.installationId, installationId), isHold, eq(creditTransactions.id, holdId)));
    },

    /**
     * `post` for a model call's charge: turns the call's hold (`holdId`, else the installation's oldest
     * live hold) into the completed row of exactly the charge when there is one (so the hold stops
     * counting as the charge starts), else writes a new row.
     */
    async settle(tx: Tx, entry: LedgerEntry, holdId?: number): Promise<{ id: number } | null> {
      movedIn(tx);
      await lock(tx, entry.installationId);
      const [hold] = await tx
        .select({ id: creditTransactions.id })
        .from(creditTransactions)
        .where(
          and(
            eq(creditTransactions.installationId, entry.installationId),
            isHold,
            gt(creditTransactions.createdAt, new Date(Date.now() - HOLD_TTL_MS)),
            ...(holdId === undefined ? [] : [eq(creditTransactions.id, holdId)]),
          ),
        )
        .orderBy(asc(creditTransactions.id))
        .limit(1);
      if (!hold) return post(tx, entry);
      await tx
        .update(creditTransactions)
        .set({
          amount: unitsToDecimal(entry.amountUnits),
          status: 'completed',
          description: entry.description ?? null,
          tokenUsageId: entry.tokenUsageId ?? null,
          createdAt: new Date(),
        })
        .where(eq(creditTransactions.id, hold.id));
      await move(tx, entry.installationId, signedUnits(entry.type, entry.amountUnits));
      return hold;
    },

    /** Writes a pending row: it shows in the history but does not count until `complete`. */
    async addPending(tx: Tx, entry: LedgerEntry): Promise<{ id: number }> {
      movedIn(tx);
      await ensureAccount(tx, entry.installationId);
      const [row] = await tx
        .insert(creditTransactions)
        .values(rowOf(entry, 'pending'))
        .returning({ id: creditTransactions.id });
      return row!;
    },

    /**
     * Completes a pending (or failed, when the provider later reports success) row and moves the balance
     * by it. Answers false when the row was completed already: nothing changes twice.
     */
    async complete(tx: Tx, installationId: number, transactionId: number): Promise<boolean> {
      movedIn(tx);
      await lock(tx, installationId);
      const [row] = await tx
        .update(creditTransactions)
        .set({ status: 'completed' })
        .where(
          and(
            eq(creditTransactions.id, transactionId),
            eq(creditTransactions.installationId, installationId),
            inArray(creditTransactions.status, ['pending', 'failed']),
          ),
        )
        .returning({ type: creditTransactions.type, amount: creditTransactions.amount });
      if (!row) return false;
      await move(tx, installationId, signedUnits(row.type as TransactionTypeName, toUnits(row.amount)));
      return true;
    },

    /** Marks a pending row failed; a completed row stays completed. */
    async fail(tx: Tx, installationId: number, transactionId: number): Promise<void> {
      movedIn(tx);
      await tx
        .update(creditTransactions)
        .set({ status: 'failed' })
        .where(
          and(
            eq(creditTransactions.id, transactionId),
            eq(creditTransactions.installationId, installationId),
            eq(creditTransactions.status, 'pending'),
          ),
        );
    },
  };
}

export type CreditsLedger = ReturnType<typeof createCreditsLedger>;
