import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * `npm run build:client`, after webpack: bundles prerenderLanding.tsx for node (packages resolved as
 * webpack resolves them for the browser, ESM first: styled-components' CommonJS build has no usable
 * default export under node's ESM) and runs it on dist/public.
 */
const outDir = path.resolve(process.argv[2] ?? 'dist/public');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'da-prerender-'));
try {
  const bundle = path.join(work, 'prerenderLanding.mjs');
  await build({
    entryPoints: [path.resolve('src/client/prerenderLanding.tsx')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    jsx: 'automatic',
    mainFields: ['module', 'main'],
    define: { 'process.env.NODE_ENV': '"production"' },
    outfile: bundle,
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  const { prerenderLanding } = (await import(pathToFileURL(bundle).href)) as typeof import('./prerenderLanding');
  const file = prerenderLanding(outDir);
  process.stdout.write(`${path.relative(process.cwd(), file)}: ${fs.statSync(file).size} bytes, ${fs.statSync(`${file}.br`).size} brotli\n`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
