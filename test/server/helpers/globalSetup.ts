import pg from 'pg';
import { pgliteTemplate, postgresTemplate } from './databaseTemplates';

/**
 * Makes the migrated templates once, before the workers start, so that parallel test files do not
 * each make their own on a cold machine.
 */
export default async function globalSetup(): Promise<void> {
  await pgliteTemplate();
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await postgresTemplate(admin, adminUrl);
  } finally {
    await admin.end();
  }
}
