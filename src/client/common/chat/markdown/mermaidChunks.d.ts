/** mermaid's internal chunk files (imported only as a split point, see MermaidDiagram.tsx); untyped. */
declare module 'mermaid/dist/chunks/mermaid.core/*';
