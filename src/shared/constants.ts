/**
 * Every text, limit and interval the specification names (section 9 of both documents and the
 * texts of sections 2, 5 and 8), grouped by area. Import from here, never retype a spec string.
 */
export * from './constants/foundation';
export * from './constants/chat';
export * from './constants/credits';
export * from './constants/planning';
export * from './constants/sandbox';
export * from './constants/execution';
export * from './constants/terminal';
export * from './constants/validation';
export * from './constants/documentation';
export * from './constants/devopsHelper';
export * from './constants/costs';
export * from './constants/activity';
export * from './constants/marketing';
export * from './constants/agents';
