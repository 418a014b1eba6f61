/**
 * Makes the landing page's media from real screenshots of the product:
 *   public/images/requirements.png   the requirements stage after a real (offline planner) turn
 *   public/videos/trailer.mp4|webm   a slideshow of the journey, landing → sign-in → projects → stages → pricing
 *   public/images/trailer.gif        the same, small, for browsers without video
 *
 * Usage: build the client, then `npx tsx test/support/make-media.ts [staticDir]` (default dist/public).
 * Needs Debian's chromium and ffmpeg (`apt-get install -y chromium ffmpeg`). It starts the real server
 * on a fresh data directory with the offline planner, so no account or network is involved.
 */
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';

const root = process.cwd();
const staticDir = path.resolve(process.argv[2] ?? 'dist/public');
const port = Number(process.env.MEDIA_PORT ?? 8197);
const base = `http://127.0.0.1:${port}`;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'da-media-'));
const frames = path.join(work, 'frames');
fs.mkdirSync(frames);

async function waitForServer(): Promise<void> {
  for (let i = 0; i < 120; i += 1) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('server did not start');
}

let frameNo = 0;
async function frame(page: Page): Promise<void> {
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(frames, `${String(frameNo++).padStart(3, '0')}.png`) });
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(staticDir, 'index.html'))) throw new Error(`no built client in ${staticDir}: run npm run build:client`);
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/server/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: path.join(work, 'data'), STATIC_DIR: staticDir, LOG_LEVEL: 'warn' },
    stdio: 'inherit',
  });
  try {
    await waitForServer();
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });

    await page.goto(`${base}/`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await frame(page);

    await page.goto(`${base}/api/github/login`);
    await page.getByLabel('Login name').fill('ada');
    await frame(page);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/app/);
    await page.getByRole('heading', { name: 'My Projects' }).waitFor();

    const installationId = await page.evaluate(() => sessionStorage.getItem('installation_id'));
    const headers = { 'installation-id': String(installationId) };
    for (const [name, description] of [
      ['ghost-blog', 'Ghost with MySQL behind Caddy on one VPS'],
      ['metrics', 'Prometheus and Grafana for the team'],
    ]) {
      await page.request.post(`${base}/api/projects`, { headers, data: { name, description } });
    }
    await page.reload();
    await page.getByText('ghost-blog').first().waitFor();
    await frame(page);

    const projects = (await (await page.request.get(`${base}/api/projects`, { headers })).json()) as { id: number; name: string }[];
    const blog = projects.find((p) => p.name === 'ghost-blog')!;
    await page.goto(`${base}/app/${blog.id}`);
    const input = page.getByPlaceholder(/Describe what you want to run/);
    await input.waitFor();
    await frame(page);
    await input.fill('A Ghost blog with MySQL behind Caddy with TLS on one VPS in Frankfurt, about 2000 visits a day.');
    await input.press('Enter');
    await page.waitForTimeout(6000);
    await frame(page);
    await page.screenshot({ path: path.join(work, 'requirements.png') });

    await page.goto(`${base}/pricing`);
    await page.getByRole('heading', { name: 'Current Rates' }).waitFor();
    await frame(page);
    await browser.close();
  } finally {
    server.kill('SIGTERM');
  }

  const images = path.join(root, 'public/images');
  const videos = path.join(root, 'public/videos');
  fs.mkdirSync(images, { recursive: true });
  fs.mkdirSync(videos, { recursive: true });
  const ffmpeg = (...args: string[]): void => {
    execFileSync('ffmpeg', ['-y', '-loglevel', 'error', ...args], { stdio: 'inherit' });
  };
  // The screenshot, palette-reduced to stay small.
  ffmpeg('-i', path.join(work, 'requirements.png'), '-vf', 'scale=1280:-2', path.join(images, 'requirements.png'));
  // Each screenshot held 2.5 s, with a short cross-fade look from a 4 fps input.
  const input = ['-framerate', '0.4', '-i', path.join(frames, '%03d.png')];
  const scale = 'scale=960:600:force_original_aspect_ratio=decrease,pad=960:600:(ow-iw)/2:(oh-ih)/2,fps=10,format=yuv420p';
  ffmpeg(...input, '-vf', scale, '-c:v', 'libx264', '-preset', 'slow', '-crf', '30', '-movflags', '+faststart', '-an', path.join(videos, 'trailer.mp4'));
  ffmpeg(...input, '-vf', scale, '-c:v', 'libvpx-vp9', '-b:v', '0', '-crf', '42', '-an', path.join(videos, 'trailer.webm'));
  ffmpeg(
    ...input,
    '-vf',
    'fps=2,scale=640:-1:flags=lanczos,split[a][b];[a]palettegen=max_colors=64[p];[b][p]paletteuse=dither=bayer',
    '-loop',
    '0',
    path.join(images, 'trailer.gif'),
  );
  for (const file of ['images/requirements.png', 'images/trailer.gif', 'videos/trailer.mp4', 'videos/trailer.webm']) {
    console.log(`${file}: ${(fs.statSync(path.join(root, 'public', file)).size / 1024).toFixed(0)} KB`);
  }
  fs.rmSync(work, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
