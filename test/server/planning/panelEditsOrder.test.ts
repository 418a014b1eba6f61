import fc from 'fast-check';
import { plan, type Turn } from '../../../src/server/agents/offline/planner';
import { panelEditsOf, STACK_EDITS_TAG, type PanelEdit } from '../../../src/server/agents/offline/panelEdits';
import type { StackModel } from '../../../src/shared/stackModel';

/**
 * Words and the panel's controls are one ordered history: whatever order a person adds and removes
 * products in, by message or by control, the stack holds what the last of them said about each.
 */

const BASE = 'I want n8n on my server at 10.0.0.5, user pi, no domain';
const PRODUCTS = [
  { id: 'adminer', label: 'Adminer' },
  { id: 'uptime-kuma', label: 'Uptime Kuma' },
  { id: 'redis', label: 'Redis' },
];

type Event = { by: 'words' | 'control'; verb: 'add' | 'remove'; product: number };

/** The offline agent's model after the history: messages as turns, controls as edits placed after the messages before them. */
function modelAfter(events: Event[]): StackModel {
  const messages = [BASE];
  const edits: PanelEdit[] = [];
  for (const e of events) {
    const p = PRODUCTS[e.product]!;
    if (e.by === 'words') messages.push(`${e.verb} ${p.label}`);
    else edits.push({ op: e.verb === 'add' ? { op: 'addComponent', product: p.id } : { op: 'removeComponent', name: p.id }, after: messages.length });
  }
  const turns: Turn[] = messages.flatMap((content): Turn[] => [{ role: 'user', content }, { role: 'assistant', content: 'Noted.' }]).slice(0, -1);
  const system = `Role: requirements\n<${STACK_EDITS_TAG}>\n${JSON.stringify(edits)}\n</${STACK_EDITS_TAG}>`;
  const reply = plan(system, turns);
  return reply.toolCalls[0]!.args.stack_model as StackModel;
}

describe('words and panel edits in one order', () => {
  test('property: each product is in the stack exactly when the last message or control about it added it', () => {
    const event = fc.record({ by: fc.constantFrom('words' as const, 'control' as const), verb: fc.constantFrom('add' as const, 'remove' as const), product: fc.nat(PRODUCTS.length - 1) });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 8 }), (events) => {
        const names = new Set(modelAfter(events).components.map((c) => c.name));
        PRODUCTS.forEach((p, i) => {
          const last = events.filter((e) => e.product === i).at(-1);
          expect({ product: p.id, present: names.has(p.id) }).toEqual({ product: p.id, present: last?.verb === 'add' });
        });
      }),
      { numRuns: 100 },
    );
  });

  test('removed with a control, then asked for in the chat: it is back; a message about something else keeps the removal', () => {
    expect(modelAfter([{ by: 'words', verb: 'add', product: 0 }, { by: 'control', verb: 'remove', product: 0 }, { by: 'words', verb: 'add', product: 0 }]).components.map((c) => c.name)).toContain('adminer');
    expect(modelAfter([{ by: 'words', verb: 'add', product: 0 }, { by: 'control', verb: 'remove', product: 0 }, { by: 'words', verb: 'add', product: 1 }]).components.map((c) => c.name)).not.toContain('adminer');
  });

  test('edits kept before they were placed among the messages count as made after all of them', () => {
    expect(panelEditsOf(JSON.stringify([{ op: 'removeComponent', name: 'adminer' }, { op: { op: 'exclude', name: 'redis' }, after: 2 }, { op: 'nope' }]))).toEqual([
      { op: { op: 'removeComponent', name: 'adminer' }, after: Number.MAX_SAFE_INTEGER },
      { op: { op: 'exclude', name: 'redis' }, after: 2 },
    ]);
  });
});
