import { createHash } from 'node:crypto';

/**
 * A generated avatar for local users, as an SVG data URL: a 5×5 mirrored identicon coloured from the
 * login's hash, so the profile never shows a broken image and needs no network.
 */
export function identiconDataUrl(seed: string): string {
  const digest = createHash('sha256').update(seed.toLowerCase()).digest();
  const hue = digest[0]! * 360 / 256;
  const fg = `hsl(${hue.toFixed(0)},62%,55%)`;
  const cells: string[] = [];
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 3; x++) {
      if (digest[1 + y * 3 + x]! % 2 === 0) continue;
      for (const cx of x === 2 ? [2] : [x, 4 - x]) cells.push(`<rect x="${cx + 1}" y="${y + 1}" width="1" height="1"/>`);
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 7 7" shape-rendering="crispEdges"><rect width="7" height="7" fill="#1f2430"/><g fill="${fg}">${cells.join('')}</g></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
