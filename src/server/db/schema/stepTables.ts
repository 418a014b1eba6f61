import { index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { RemovedStep, StepChange, StepProposal } from '../../../shared/api/execution';
import { projects } from './core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/**
 * The tables of a stage that runs approved steps in the project's sandbox (execution, validation): one
 * plan per project and its ordered steps. A step's command is stored once and is exactly what an
 * approval runs. Both stages share the shape, so they share the step runner (services/steps/stepRuns.ts).
 */
export function stepTables(prefix: string) {
  const plans = pgTable(
    `${prefix}_plans`,
    {
      id: serial('id').primaryKey(),
      projectId: integer('project_id')
        .notNull()
        .references(() => projects.id, { onDelete: 'cascade' }),
      /** running | completed (informational; the steps' statuses are the truth). */
      status: text('status').notNull().default('running'),
      /** How many times the plan was revised from a changed implementation plan after steps had run (0: never). */
      revision: integer('revision').notNull().default(0),
      /** Steps of the plan that ran before, which the latest revision no longer has. */
      removedSteps: jsonb('removed_steps').$type<RemovedStep[]>().notNull().default([]),
      createdAt: at('created_at'),
      updatedAt: at('updated_at'),
    },
    // One plan per project: a second trigger (or two at once) answers the existing plan.
    (t) => [uniqueIndex(`${prefix}_plans_project_idx`).on(t.projectId)],
  );

  const steps = pgTable(
    `${prefix}_steps`,
    {
      planId: integer('plan_id')
        .notNull()
        .references(() => plans.id, { onDelete: 'cascade' }),
      stepNumber: integer('step_number').notNull(),
      description: text('description').notNull().default(''),
      prompt: text('prompt').notNull().default(''),
      /** The exact shell command; null for a prompt-only step. */
      command: text('command'),
      /** pending | waiting_approval | in_progress | completed | failed | rejected */
      status: text('status').notNull().default('waiting_approval'),
      /** Redacted of the project's secrets before it is stored. */
      output: text('output'),
      errorMessage: text('error_message'),
      /** Why the step needs a human even with auto-approve on; null when the command is not dangerous. */
      dangerousReason: text('dangerous_reason'),
      /** Set by a revision: what differs from what ran ('added', 'changed', 'rerun'); null for an original or unchanged step. */
      change: text('change').$type<StepChange>(),
      /** For a changed step: the command as it was before the revision (sealed like `command`). */
      previousCommand: text('previous_command'),
      /** A change the agent proposed, shown as a difference until the person saves or discards it (commands sealed). */
      proposal: jsonb('proposal').$type<StepProposal>(),
      startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
      /**
       * Written by the server process running the step, every few seconds while it runs: a step whose
       * heartbeat stopped was left by a process that is gone (another replica's running steps are not).
       */
      heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }),
      finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
      createdAt: at('created_at'),
      updatedAt: at('updated_at'),
    },
    (t) => [primaryKey({ columns: [t.planId, t.stepNumber] }), index(`${prefix}_steps_status_idx`).on(t.status)],
  );

  return { plans, steps };
}

export type StepTables = ReturnType<typeof stepTables>;
