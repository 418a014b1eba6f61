import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  WRITES_IDX_MAP,
  copyCheckpoint,
  getCheckpointId,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import { and, asc, desc, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { planningCheckpoints, planningCheckpointWrites, planningThreads } from '../db/schema';
import { textRedactor } from '../sandbox/redactor';

type CheckpointRow = typeof planningCheckpoints.$inferSelect;

const b64 = (bytes: Uint8Array | string): string => Buffer.from(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes).toString('base64');
const unb64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));

export interface CheckpointSaverOptions {
  /**
   * The project's User Secrets: a conversation is stored with their values blanked (a secret the person
   * typed into a message, or a command the model proposed with it), as every other record is.
   */
  secretValues?: (projectId: number) => Promise<Record<string, string>>;
}

/**
 * LangGraph's checkpoint saver over our database (PGlite or PostgreSQL through Drizzle), so that agent
 * conversations survive a restart. Mirrors MemorySaver's semantics: checkpoints keyed by thread,
 * namespace and id (ids sort by time), pending writes keyed by task and index, special writes
 * (errors, interrupts) replaced rather than duplicated.
 */
export class DrizzleCheckpointSaver extends BaseCheckpointSaver {
  constructor(
    private readonly db: Db,
    private readonly options: CheckpointSaverOptions = {},
    serde?: SerializerProtocol,
  ) {
    super(serde);
  }

  /** The whole-text redaction of the thread's project, or null when it has no secret values. */
  private async redactorOf(threadId: string): Promise<((text: string) => string) | null> {
    if (!this.options.secretValues) return null;
    const [thread] = await this.db.select({ projectId: planningThreads.projectId }).from(planningThreads).where(eq(planningThreads.id, threadId));
    const values = thread ? Object.values(await this.options.secretValues(thread.projectId)) : [];
    return values.length ? textRedactor(values) : null;
  }

  /**
   * Serialises a value as stored: every string in it redacted of the project's secrets. Parsing and
   * writing the JSON again blanks whole strings only, so no escape sequence is ever cut. The running
   * turn keeps its own values in memory, so a command still runs with what the person typed.
   */
  private async dumps(value: unknown, redact: ((text: string) => string) | null): Promise<[string, Uint8Array | string]> {
    const [type, data] = await this.serde.dumpsTyped(value);
    if (!redact || type !== 'json') return [type, data];
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    return [type, JSON.stringify(JSON.parse(text), (_key, v: unknown) => (typeof v === 'string' ? redact(v) : v))];
  }

  private async toTuple(row: CheckpointRow): Promise<CheckpointTuple> {
    const checkpoint = (await this.serde.loadsTyped(row.type, unb64(row.checkpoint))) as Checkpoint;
    const metadata = (await this.serde.loadsTyped(row.metadataType, unb64(row.metadata))) as CheckpointMetadata;
    const writes = await this.db
      .select()
      .from(planningCheckpointWrites)
      .where(
        and(
          eq(planningCheckpointWrites.threadId, row.threadId),
          eq(planningCheckpointWrites.checkpointNs, row.checkpointNs),
          eq(planningCheckpointWrites.checkpointId, row.checkpointId),
        ),
      )
      .orderBy(asc(planningCheckpointWrites.taskPath), asc(planningCheckpointWrites.taskId), asc(planningCheckpointWrites.idx));
    const pendingWrites = await Promise.all(
      writes.map(async (w) => [w.taskId, w.channel, await this.serde.loadsTyped(w.type, unb64(w.value))] as [string, string, unknown]),
    );
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id: row.threadId, checkpoint_ns: row.checkpointNs, checkpoint_id: row.checkpointId } },
      checkpoint,
      metadata,
      pendingWrites,
    };
    if (row.parentCheckpointId) {
      tuple.parentConfig = { configurable: { thread_id: row.threadId, checkpoint_ns: row.checkpointNs, checkpoint_id: row.parentCheckpointId } };
    }
    return tuple;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (!threadId) return undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const id = getCheckpointId(config);
    const where = [eq(planningCheckpoints.threadId, threadId), eq(planningCheckpoints.checkpointNs, ns)];
    if (id) where.push(eq(planningCheckpoints.checkpointId, id));
    const [row] = await this.db
      .select()
      .from(planningCheckpoints)
      .where(and(...where))
      .orderBy(desc(planningCheckpoints.checkpointId))
      .limit(1);
    return row ? this.toTuple(row) : undefined;
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const where = [];
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId) where.push(eq(planningCheckpoints.threadId, threadId));
    const ns = config.configurable?.checkpoint_ns as string | undefined;
    if (ns !== undefined) where.push(eq(planningCheckpoints.checkpointNs, ns));
    const id = config.configurable?.checkpoint_id as string | undefined;
    if (id) where.push(eq(planningCheckpoints.checkpointId, id));
    const before = options?.before?.configurable?.checkpoint_id as string | undefined;
    if (before) where.push(lt(planningCheckpoints.checkpointId, before));
    const rows = await this.db
      .select()
      .from(planningCheckpoints)
      .where(where.length ? and(...where) : sql`true`)
      .orderBy(desc(planningCheckpoints.checkpointId));
    let remaining = options?.limit;
    for (const row of rows) {
      const tuple = await this.toTuple(row);
      if (options?.filter && !Object.entries(options.filter).every(([k, v]) => (tuple.metadata as Record<string, unknown> | undefined)?.[k] === v)) continue;
      if (remaining !== undefined) {
        if (remaining <= 0) break;
        remaining -= 1;
      }
      yield tuple;
    }
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, _newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (!threadId) throw new Error('Failed to put checkpoint: the config has no thread_id');
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const redact = await this.redactorOf(threadId);
    const [[type, data], [metadataType, metadataData]] = await Promise.all([this.dumps(copyCheckpoint(checkpoint), redact), this.dumps(metadata, redact)]);
    const values = {
      threadId,
      checkpointNs: ns,
      checkpointId: checkpoint.id,
      parentCheckpointId: (config.configurable?.checkpoint_id as string | undefined) ?? null,
      type,
      checkpoint: b64(data),
      metadataType,
      metadata: b64(metadataData),
    };
    await this.db
      .insert(planningCheckpoints)
      .values(values)
      .onConflictDoUpdate({
        target: [planningCheckpoints.threadId, planningCheckpoints.checkpointNs, planningCheckpoints.checkpointId],
        set: { type, checkpoint: values.checkpoint, metadataType, metadata: values.metadata, parentCheckpointId: values.parentCheckpointId },
      });
    await this.db.update(planningThreads).set({ updatedAt: new Date() }).where(eq(planningThreads.id, threadId));
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = config.configurable?.thread_id as string | undefined;
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    if (!threadId || !checkpointId) throw new Error('Failed to put writes: the config has no thread_id or checkpoint_id');
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const redact = await this.redactorOf(threadId);
    for (const [index, [channel, value]] of writes.entries()) {
      const idx = (WRITES_IDX_MAP as Record<string, number>)[channel] ?? index;
      const [type, data] = await this.dumps(value, redact);
      const row = { threadId, checkpointNs: ns, checkpointId, taskId, idx, channel, type, value: b64(data), taskPath: taskPath ?? '' };
      const insert = this.db.insert(planningCheckpointWrites).values(row);
      // Regular writes are written once; special ones (negative idx: error, interrupt…) are replaced.
      if (idx >= 0) await insert.onConflictDoNothing();
      else {
        await insert.onConflictDoUpdate({
          target: [planningCheckpointWrites.threadId, planningCheckpointWrites.checkpointNs, planningCheckpointWrites.checkpointId, planningCheckpointWrites.taskId, planningCheckpointWrites.idx],
          set: { channel, type, value: row.value, taskPath: row.taskPath },
        });
      }
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.db.delete(planningCheckpointWrites).where(eq(planningCheckpointWrites.threadId, threadId));
    await this.db.delete(planningCheckpoints).where(eq(planningCheckpoints.threadId, threadId));
  }
}
