import { boolean, foreignKey, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from './core';

/**
 * Planning: agent conversations (LangGraph threads and their checkpoints, so a restart loses nothing),
 * the documents the agents write, and the user secrets the plans need (encrypted).
 */

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** One conversation of one agent about one project; its id is the `thread_id` of the stream events. */
export const planningThreads = pgTable(
  'planning_threads',
  {
    id: text('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** requirements | analyzer | architect | implementation */
    agent: text('agent').notNull(),
    createdAt: at('created_at'),
    updatedAt: at('updated_at'),
  },
  (t) => [index('planning_threads_project_agent_idx').on(t.projectId, t.agent, t.updatedAt)],
);

/** LangGraph checkpoints (serialised by the graph's serde, stored base64). */
export const planningCheckpoints = pgTable(
  'planning_checkpoints',
  {
    threadId: text('thread_id').notNull(),
    checkpointNs: text('checkpoint_ns').notNull().default(''),
    checkpointId: text('checkpoint_id').notNull(),
    parentCheckpointId: text('parent_checkpoint_id'),
    type: text('type').notNull(),
    checkpoint: text('checkpoint').notNull(),
    metadataType: text('metadata_type').notNull(),
    metadata: text('metadata').notNull(),
    createdAt: at('created_at'),
  },
  (t) => [
    primaryKey({ columns: [t.threadId, t.checkpointNs, t.checkpointId] }),
    foreignKey({ columns: [t.threadId], foreignColumns: [planningThreads.id] }).onDelete('cascade'),
  ],
);

/** Pending writes of a checkpoint's tasks. */
export const planningCheckpointWrites = pgTable(
  'planning_checkpoint_writes',
  {
    threadId: text('thread_id').notNull(),
    checkpointNs: text('checkpoint_ns').notNull().default(''),
    checkpointId: text('checkpoint_id').notNull(),
    taskId: text('task_id').notNull(),
    idx: integer('idx').notNull(),
    channel: text('channel').notNull(),
    type: text('type').notNull(),
    value: text('value').notNull(),
    taskPath: text('task_path').notNull().default(''),
  },
  (t) => [
    primaryKey({ columns: [t.threadId, t.checkpointNs, t.checkpointId, t.taskId, t.idx] }),
    foreignKey({ columns: [t.threadId], foreignColumns: [planningThreads.id] }).onDelete('cascade'),
  ],
);

/** The documents the agents write: requirements, analysis (JSON), architecture and implementation plans. */
export const planningDocuments = pgTable(
  'planning_documents',
  {
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** requirements | analysis | architecture | implementation */
    kind: text('kind').notNull(),
    content: text('content').notNull(),
    /** The agent's own go-ahead (requirements only). */
    ready: boolean('ready').notNull().default(false),
    updatedAt: at('updated_at'),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.kind] })],
);

/**
 * The secrets a project's plans need, declared by the requirements agent. A value is stored only as
 * AES-256-GCM ciphertext (random 12-byte IV, AAD = project id + name).
 */
export const planningSecrets = pgTable(
  'planning_secrets',
  {
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull(),
    required: boolean('required').notNull(),
    /** password | text */
    secretType: text('secret_type').notNull(),
    /** base64 of ciphertext || 16-byte tag; null while not provided. */
    ciphertext: text('ciphertext'),
    iv: text('iv'),
    /** Declared by the agent (true) or only provided, e.g. from the analysis environment (false). */
    declared: boolean('declared').notNull().default(true),
    updatedAt: at('updated_at'),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);
