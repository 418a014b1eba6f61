import fs from 'node:fs';
import path from 'node:path';
import { CHECKED_CATALOGUE, readProducts } from './catalogue';

/**
 * Run by `npm run build:server`: reads and checks the product files of src/server/agents/catalogue/products
 * (a bad one fails the build, naming the file and the field) and writes the catalogue the bundled server
 * reads at start, `<out>/components.json`.
 *
 * Usage: tsx src/server/agents/catalogue/writeCatalogue.ts dist/server/catalogue
 */
const out = process.argv[2];
if (!out) throw new Error('usage: writeCatalogue.ts <output directory>');
const components = readProducts(path.join(import.meta.dirname, 'products'));
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, CHECKED_CATALOGUE), JSON.stringify(components));
process.stdout.write(`catalogue: ${Object.keys(components).length} products checked into ${path.join(out, CHECKED_CATALOGUE)}\n`);
