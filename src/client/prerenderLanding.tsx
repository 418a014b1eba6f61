import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { ServerStyleSheet } from 'styled-components';
import { AppProviders } from './app/App';
import { makeStore } from './app/store';
import { LandingPage } from './features/marketing/LandingPage';

/** The empty root of the built index.html (minified: its attribute unquoted). */
const ROOT = /<div id="?root"?><\/div>/;

/**
 * The landing page as HTML, written at build time (`npm run build:client`, after webpack; bundled and
 * run by buildLanding.ts) to landing.html beside the built index.html, with its styles and with brotli
 * and gzip copies. The server sends it for `/` to a browser without a session. Its trailer poster is
 * then requested by the HTML and painted before any script runs; the app's bundle replaces the page
 * with the same one (client/index.tsx loads the landing chunk first, so no spinner shows in between).
 */
export function prerenderLanding(outDir: string): string {
  const template = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
  if (!ROOT.test(template)) throw new Error(`${outDir}/index.html has no empty root element`);
  const sheet = new ServerStyleSheet();
  try {
    const markup = renderToString(
      sheet.collectStyles(
        <AppProviders store={makeStore()}>
          <MemoryRouter initialEntries={['/']}>
            <LandingPage />
          </MemoryRouter>
        </AppProviders>,
      ),
    );
    const html = template.replace('</head>', () => `${sheet.getStyleTags()}</head>`).replace(ROOT, () => `<div id="root">${markup}</div>`);
    const file = path.join(outDir, 'landing.html');
    fs.writeFileSync(file, html);
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(html, { level: 9 }));
    fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(html, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
    return file;
  } finally {
    sheet.seal();
  }
}
