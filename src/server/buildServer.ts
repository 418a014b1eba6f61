import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { writeCheckedCatalogue } from './agents/catalogue/catalogue';
import { writeCheckedProviders } from './agents/catalogue/providers';
import { writePgliteTemplate } from './db/client';
import { PGLITE_TEMPLATE } from './db/pglite';

/**
 * `npm run build:server`: the server as one ESM file, dist/server/server.mjs, with its packages inside,
 * so that a start reads one file instead of resolving and loading some thousand modules from
 * node_modules (that was half of a start on an existing data directory). Then the checked catalogue
 * and the PGlite template (a migrated data directory, db/pglite.ts).
 *
 * Left to node_modules, loaded as they are:
 * - packages with native code or files of their own found beside their modules: PGlite (its WASM and
 *   data), node-pty, the API reference page's assets (@fastify/swagger-ui), dockerode and its ssh2;
 * - packages loaded only when configured (dockerode, the Kubernetes client, ioredis, the OpenAI and
 *   Anthropic model clients) or used (mvdan-sh, the bash parser of the tools preflight, 1.5 MB): they
 *   stay out of the file a start parses.
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
  'mvdan-sh',
];

const outdir = path.resolve('dist/server');
await build({
  entryPoints: [path.resolve('src/server/server.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  // The source stays in memory for as long as the server runs (V8 keeps it to compile functions lazily):
  // one character above U+00FF made all 7.7 MB of it a two-byte string, 15 MB of heap. ASCII escapes
  // and no indentation: 5.3 MB, one byte a character (checked below: esbuild leaves regular expressions as written).
  charset: 'ascii',
  minifyWhitespace: true,
  external: EXTERNAL,
  outfile: path.join(outdir, 'server.mjs'),
  // Bundled CommonJS packages call require (for node: built-ins too): give the ESM file one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
const bundled = fs.readFileSync(path.join(outdir, 'server.mjs'), 'utf8');
let wide = -1;
for (let i = 0; i < bundled.length && wide < 0; i += 1) if (bundled.charCodeAt(i) > 0xff) wide = i;
if (wide >= 0) {
  const around = bundled.slice(Math.max(0, wide - 60), wide + 20);
  throw new Error(`dist/server/server.mjs holds ${JSON.stringify(bundled[wide])} (above U+00FF), which makes V8 keep its whole source two-byte: write it as a \\u escape. Near: ${around}`);
}
const products = writeCheckedCatalogue(path.join(outdir, 'catalogue'));
const providers = writeCheckedProviders(path.join(outdir, 'catalogue'));
await writePgliteTemplate(path.join(outdir, PGLITE_TEMPLATE), path.resolve('migrations'));
process.stdout.write(`dist/server/server.mjs built; catalogue: ${products} products and ${providers} providers checked into dist/server/catalogue; a new PGlite data directory starts from dist/server/${PGLITE_TEMPLATE}\n`);
