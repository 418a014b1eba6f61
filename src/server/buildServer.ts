import path from 'node:path';
import { build } from 'esbuild';
import { writeCheckedCatalogue } from './agents/catalogue/catalogue';

/**
 * `npm run build:server`: the server as one ESM file, dist/server/server.mjs, with its packages inside,
 * so that a start reads one file instead of resolving and loading some thousand modules from
 * node_modules (that was half of a start on an existing data directory). Then the checked catalogue.
 *
 * Left to node_modules, loaded as they are:
 * - packages with native code or files of their own found beside their modules: PGlite (its WASM and
 *   data), node-pty, the API reference page's assets (@fastify/swagger-ui), dockerode and its ssh2;
 * - packages loaded only when configured (dockerode, the Kubernetes client, ioredis, the OpenAI and
 *   Anthropic model clients): they stay out of the file a start parses (together about 2 MB).
 */
const EXTERNAL = [
  '@electric-sql/pglite',
  'node-pty',
  'pg-native',
  '@fastify/swagger-ui',
  'dockerode',
  'ssh2',
  'cpu-features',
  '@kubernetes/client-node',
  'ioredis',
  '@langchain/openai',
  '@langchain/anthropic',
];

const outdir = path.resolve('dist/server');
await build({
  entryPoints: [path.resolve('src/server/server.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  external: EXTERNAL,
  outfile: path.join(outdir, 'server.mjs'),
  // Bundled CommonJS packages call require (for node: built-ins too): give the ESM file one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
const products = writeCheckedCatalogue(path.join(outdir, 'catalogue'));
process.stdout.write(`dist/server/server.mjs built; catalogue: ${products} products checked into dist/server/catalogue\n`);
