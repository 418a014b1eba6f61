import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { converse, plans } from '../server/helpers/plannerConversation';
import { EVAL_REQUESTS } from './requests';

/**
 * Writes each request's documents (requirements, architecture, implementation, compose, config files) under a
 * folder, so a person can read the plans as an engineer would and run docker-compose config / ShellCheck on them.
 *
 *   npx tsx test/eval/dump.ts /tmp/plans rt-     the requests whose id contains one of the words
 */
const [outDir, ...words] = process.argv.slice(2);
if (!outDir) throw new Error('usage: dump.ts <folder> [words…]');
for (const request of EVAL_REQUESTS.filter((r) => !words.length || words.some((w) => r.id.includes(w)))) {
  const dir = join(outDir, request.id);
  mkdirSync(join(dir, 'files'), { recursive: true });
  try {
    const c = converse([...request.says, 'Go with sensible defaults for everything else.']);
    writeFileSync(join(dir, 'replies.md'), c.replies.join('\n\n-----\n\n'));
    writeFileSync(join(dir, 'requirements.md'), c.document);
    if (!c.ready) continue;
    const serverFacts = request.portsInUse ? { inspectedAt: new Date().toISOString(), portsInUse: request.portsInUse.map((port) => ({ port, protocol: 'tcp' as const, holder: 'another service' })), containers: [], composeProjects: [] } : undefined;
    const p = plans(c.document, serverFacts);
    writeFileSync(join(dir, 'architecture.md'), p.architecture);
    writeFileSync(join(dir, 'implementation.md'), p.implementation);
    writeFileSync(join(dir, 'docker-compose.yml'), p.compose);
    for (const f of p.files) writeFileSync(join(dir, 'files', f.path.replace(/\//g, '__')), f.content);
  } catch (err) {
    writeFileSync(join(dir, 'error.txt'), String((err as Error).stack));
  }
}
