/**
 * The database schema, one file per area. drizzle-kit reads this folder; generate a migration with
 * `npm run db:generate` after a change and commit it.
 */
export * from './core';
export * from './credits';
export * from './sandbox';
export * from './planning';
export * from './execution';
export * from './activity';
export * from './validation';
export * from './notifications';
export * from './releases';
export * from './backups';
