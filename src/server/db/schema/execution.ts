import { stepTables } from './stepTables';

/** The execution stage: one plan per project (made from its implementation plan by the trigger) and its steps. */
const execution = stepTables('execution');

export const executionPlans = execution.plans;
export const executionSteps = execution.steps;
