import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/**
 * One schema for PGlite and PostgreSQL. Every tenant-owned row hangs off `installations.id`;
 * queries scope by it (ARCHITECTURE.md, "Security rules").
 */

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    /** 'local' or 'github' */
    provider: text('provider').notNull(),
    /** The provider's stable id: the lower-cased login for local users, GitHub's numeric user id. */
    providerUserId: text('provider_user_id').notNull(),
    login: text('login').notNull(),
    name: text('name'),
    avatarUrl: text('avatar_url'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_provider_user_uq').on(t.provider, t.providerUserId)],
);

export const installations = pgTable(
  'installations',
  {
    id: serial('id').primaryKey(),
    provider: text('provider').notNull(),
    /** The id the client holds and sends as Installation-Id (GitHub's installation id, or ours for local). */
    publicId: bigint('public_id', { mode: 'number' }).notNull(),
    /** The user who created it (local: its only user). */
    ownerUserId: integer('owner_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('installations_public_uq').on(t.provider, t.publicId)],
);

export const sessions = pgTable(
  'sessions',
  {
    /** sha256 of the cookie token: a database leak does not hand out live sessions. */
    id: text('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    installationId: integer('installation_id')
      .notNull()
      .references(() => installations.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

/** Pending GitHub sign-ins: `state` and the PKCE verifier, kept until the callback or expiry. */
export const oauthStates = pgTable('oauth_states', {
  state: text('state').primaryKey(),
  codeVerifier: text('code_verifier').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
});

export const projects = pgTable(
  'projects',
  {
    id: serial('id').primaryKey(),
    installationId: integer('installation_id')
      .notNull()
      .references(() => installations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    currentStageIndex: integer('current_stage_index').notNull().default(0),
    /**
     * Where the project's stack lives on its server (stackPlace.ts), fixed the first time a plan or a
     * step uses it (services/releases/projectPlace.ts): never derived again from the name, which can change.
     */
    stackDirectory: text('stack_directory'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('projects_installation_updated_idx').on(t.installationId, t.updatedAt)],
);

export const projectStages = pgTable(
  'project_stages',
  {
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    stageId: text('stage_id').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    agentId: text('agent_id').notNull(),
    order: integer('order').notNull(),
    isEnabled: boolean('is_enabled').notNull().default(true),
    isActive: boolean('is_active').notNull().default(false),
    isCompleted: boolean('is_completed').notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.stageId] })],
);

/** One row per model call: what the planning agents spend, priced when recorded. */
export const tokenUsage = pgTable(
  'token_usage',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    agent: text('agent').notNull(),
    model: text('model').notNull(),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    cost: numeric('cost', { precision: 18, scale: 8 }).notNull().default(sql`0`),
    createdAt: createdAt(),
  },
  (t) => [index('token_usage_project_idx').on(t.projectId, t.createdAt)],
);
