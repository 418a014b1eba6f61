/**
 * mermaid for the client tests, mapped in by package.json's `moduleNameMapper`. The real one cannot
 * draw in jsdom (ESM-only chunks, and no SVG layout: no `getBBox`), so this stand-in draws a small
 * <svg> with one `g.node` per node of a `graph`/`flowchart` source and refuses any other source, as
 * mermaid's parser does. The real drawing is checked in Chromium by the planning journey.
 */
const mermaid = {
  initialize(): void {},
  async render(id: string, source: string): Promise<{ svg: string }> {
    const match = /^\s*(?:graph|flowchart)\s+(?:TD|TB|LR|RL|BT)\b;?([\s\S]*)$/.exec(source);
    if (!match) throw new Error(`Parse error on line 1: ${source.split('\n')[0]}`);
    const nodes = [...new Set(match[1].match(/[A-Za-z0-9_]+/g) ?? [])];
    return { svg: `<svg id="${id}" role="img">${nodes.map((node) => `<g class="node"><text>${node}</text></g>`).join('')}</svg>` };
  },
};

export default mermaid;
