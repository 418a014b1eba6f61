import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from './core';
import { stepTables } from './stepTables';

/**
 * The validation stage: one plan per project (made from the validation agent's plan by the trigger) and
 * its read-only check steps, run in the sandbox after approval like execution steps.
 */
const validation = stepTables('validation');

export const validationPlans = validation.plans;
export const validationSteps = validation.steps;

/** A project's generated documentation: written after validation, served by GET /api/documentation/current. */
export const projectDocumentation = pgTable('project_documentation', {
  projectId: integer('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  /** generating | ready | failed */
  status: text('status').notNull(),
  documentation: text('documentation').notNull().default(''),
  quickstart: text('quickstart').notNull().default(''),
  /** Non-secret facts (workspace folders, services, …); never a secret value. */
  keyValueData: jsonb('key_value_data').$type<Record<string, unknown>>().notNull().default({}),
  /** When the documentation and quick start texts were last written (null before the first). */
  writtenAt: timestamp('written_at', { withTimezone: true, mode: 'date' }),
  /**
   * The validation results the texts were written from (each check's status and finish time): a later
   * result that differs makes the documents out of date.
   */
  validationBasis: jsonb('validation_basis').$type<Array<{ step_number: number; status: string; finished_at: string | null }>>(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
