/** The implementation plan's step format lives in the contract: src/shared/planSteps.ts. */
export * from '../../../shared/planSteps';
