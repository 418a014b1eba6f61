import fc from 'fast-check';
import { applyStackOps } from '../../../src/shared/stackOps';
import { emptyStackModel } from '../../../src/shared/stackModel';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { CATALOGUE_VIEW, factsOfModel, modelOfStack, renderStack } from '../../../src/server/agents/offline/stackModelBridge';
import { readStackModel, renderArchitecturePlan } from '../../../src/server/agents/offline/documents';
import { plan, TOOL_NAMES } from '../../../src/server/agents/offline/planner';
import { verifyPlans } from '../../../src/server/agents/verifier/verifyPlan';
import { verifierFactsOf } from '../../../src/server/agents/verifier/stackModelFacts';
import type { StackModel } from '../../../src/shared/stackModel';

/**
 * A removal holds: a component removed although another one needs it is never put back (nor replaced by
 * another choice of the need) on any later render; the requirements and the plan say what now lacks it,
 * and the plan's verifier names it.
 */

/** Every catalogue product with a need, and each product that can fill it. */
const NEEDED = Object.values(PRODUCTS).flatMap((p) => p.needs.flatMap((need) => need.filter((d) => PRODUCTS[d]).map((d) => ({ user: p.id, need, filler: d }))));

const idsOf = (m: StackModel): string[] => m.components.flatMap((c) => (c.source.kind === 'catalogue' ? [c.source.id] : []));

describe('a removal of a needed component', () => {
  it('holds through every render: requirements, architecture and the model the plan carries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...NEEDED), async ({ user, need, filler }) => {
        const added = applyStackOps(emptyStackModel(), [{ op: 'addComponent', product: user }, { op: 'addComponent', product: filler }], CATALOGUE_VIEW);
        const name = added.components.find((c) => c.source.kind === 'catalogue' && c.source.id === filler)!.name;
        const removed = applyStackOps(added, [{ op: 'removeComponent', name }], CATALOGUE_VIEW);
        const lacks = !need.some((x) => idsOf(removed).includes(x));
        const stack = renderStack(removed);
        const rendered = stack.components.map((c) => c.id);
        const said = { user, filler, rendered };
        expect({ ...said, back: rendered.includes(filler) }).toEqual({ ...said, back: false });
        if (!lacks) return;
        // No other choice of the need is put in its place either, and the removal is said where the person reads.
        expect({ ...said, others: rendered.filter((x) => need.includes(x)) }).toEqual({ ...said, others: [] });
        expect(removed.leftOut.map((l) => l.name)).toContain(filler);
        expect(stack.notes.join('\n')).toContain(`you removed ${PRODUCTS[filler]!.label}`);
        // The architecture plan carries the removal in its model, so the steps made from it hold it too.
        const architecture = renderArchitecturePlan(stack);
        const carried = readStackModel(architecture)!;
        expect(renderStack(carried).components.map((c) => c.id)).not.toContain(filler);
        expect(factsOfModel(modelOfStack(stack)).heldOut.has(filler)).toBe(true);
        const findings = await verifyPlans({ architecture, ...verifierFactsOf(carried) });
        expect({ ...said, found: findings.some((f) => f.code === 'required-component-missing' && f.message.includes(PRODUCTS[user]!.label)) }).toEqual({ ...said, found: true });
      }),
      { numRuns: Math.min(60, NEEDED.length * 2), seed: 23 },
    );
  });

  it('made with the panel, stays removed on the next turns of the conversation, and adding it back undoes it', () => {
    const request = 'Nextcloud with MariaDB behind Caddy at cloud.example.org on my VPS, light load';
    const system = (edits: unknown[]) => `Role: requirements\n<stack_edits>\n${JSON.stringify(edits)}\n</stack_edits>`;
    const removal = { op: { op: 'removeComponent', name: 'mariadb' }, after: 1 };
    const turns = [{ role: 'user' as const, content: request }];
    const first = plan(system([removal]), turns);
    turns.push({ role: 'assistant' as const, content: first.text } as never, { role: 'user', content: 'light load, about 20 users' });
    const later = plan(system([removal]), turns);
    for (const reply of [first, later]) {
      const model = reply.toolCalls.find((c) => c.name === TOOL_NAMES.requirements)!.args.stack_model as StackModel;
      expect(idsOf(model)).not.toEqual(expect.arrayContaining(['mariadb']));
      expect(idsOf(model).filter((x) => ['postgres', 'mysql', 'mariadb'].includes(x))).toEqual([]);
      expect(reply.text).toMatch(/Nextcloud 30 needs .*MariaDB.*, and you removed MariaDB/);
    }
    const back = plan(system([removal, { op: { op: 'addComponent', product: 'mariadb' }, after: 2 }]), turns);
    expect(idsOf(back.toolCalls[0]!.args.stack_model as StackModel)).toContain('mariadb');
    expect(back.text).not.toContain('you removed');
  });
});
