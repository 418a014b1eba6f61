/** What the app does with the landing page the server prerendered (landing.html) before taking it over. */

/** Where `node` sits under `root`: the index of each ancestor among its parent's children, from the root down. */
function pathOf(node: Node | null, root: Node): number[] | null {
  const path: number[] = [];
  for (let at = node; at && at !== root; at = at.parentNode) {
    if (!at.parentNode) return null;
    path.unshift(Array.prototype.indexOf.call(at.parentNode.childNodes, at));
  }
  return node ? path : null;
}

function nodeAt(root: Node, path: number[]): Node | null {
  let at: Node | null = root;
  for (const index of path) at = at?.childNodes[index] ?? null;
  return at;
}

/**
 * Holds the clicks made on a page the server prerendered (landing.html) while the app is not yet
 * running, and gives them, once the app has rendered the same page in its place, to the same place of
 * the new page: a visitor who clicks Get Started at once is not ignored. Answers the function that
 * replays them (call it after the app's first render is committed).
 */
export function holdEarlyClicks(container: HTMLElement): () => void {
  const held: number[][] = [];
  const onClick = (event: MouseEvent): void => {
    const path = pathOf(event.target as Node | null, container);
    if (!path) return;
    event.preventDefault();
    event.stopPropagation();
    held.push(path);
  };
  container.addEventListener('click', onClick, true);
  return () => {
    container.removeEventListener('click', onClick, true);
    for (const path of held) {
      const target = nodeAt(container, path);
      if (target instanceof HTMLElement) target.click();
    }
  };
}

/** How long the takeover waits at most for the poster (a failed or slow picture must not hold the app back). */
const POSTER_WAIT_MS = 3_000;

/**
 * Resolves once the prerendered page's trailer poster is decoded and a frame has been painted with it
 * (or after POSTER_WAIT_MS, or at once when there is none).
 */
export function posterPainted(container: HTMLElement): Promise<void> {
  const poster = container.querySelector('video[poster]')?.getAttribute('poster');
  if (!poster) return Promise.resolve();
  const image = new Image();
  image.src = poster;
  const decoded = image.decode().catch(() => undefined);
  const capped = new Promise<void>((resolve) => setTimeout(resolve, POSTER_WAIT_MS));
  return Promise.race([decoded, capped]).then(() => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve))));
}
