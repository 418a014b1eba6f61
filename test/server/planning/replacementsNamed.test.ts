import { plan, TOOL_NAMES, type Turn } from '../../../src/server/agents/offline/planner';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { STACK_MODEL_TAG } from '../../../src/server/agents/offline/panelEdits';
import { CATALOGUE_VIEW } from '../../../src/server/agents/offline/stackModelBridge';
import type { StackModel } from '../../../src/shared/stackModel';

/**
 * A reply to a correction names what was put in place of what was removed, whenever a need is refilled,
 * read from the stack model's change (who reached the removed component reaches the new one), for every
 * catalogue product with a need of several choices, each choice removed, in each chat; and says plainly
 * what it could not change and why. The service's stored model is played by the stack_model block.
 */

type Chat = 'requirements' | 'architecture' | 'implementation';
const said = (id: string): string => PRODUCTS[id]!.aliases[0]!.replace(/[\\()?|[\]]/g, '');
const modelBlock = (m: StackModel): string => `\n<${STACK_MODEL_TAG}>\n${JSON.stringify(m)}\n</${STACK_MODEL_TAG}>`;

/** The requirements agent's model and document after the first request, as the service stores them. */
function requirements(request: string): { model: StackModel; document: string } {
  const reply = plan('Role: requirements', [{ role: 'user', content: request }]);
  const args = reply.toolCalls.find((c) => c.name === TOOL_NAMES.requirements)!.args;
  return { model: args.stack_model as StackModel, document: args.document as string };
}

/** The reply of a chat to `correction`, said after the first request (and the plans made from it). */
function replyTo(chat: Chat, request: string, correction: string): { text: string; model?: StackModel } {
  const first = requirements(request);
  if (chat === 'requirements') {
    const turns: Turn[] = [{ role: 'user', content: request }, { role: 'assistant', content: 'ok' }, { role: 'user', content: correction }];
    const reply = plan(`Role: requirements${modelBlock(first.model)}`, turns);
    return { text: reply.text, model: reply.toolCalls[0]?.args.stack_model as StackModel };
  }
  const base = `<requirements_document>\n${first.document}\n</requirements_document>${modelBlock(first.model)}`;
  const architecture = plan(`Role: architect\n${base}`, [{ role: 'user', content: 'Generate architecture plan' }]).toolCalls.at(-1)!.args.plan as string;
  let system = `Role: ${chat === 'architecture' ? 'architect' : 'implementation'}\n${base}\n<architecture_plan>\n${architecture}\n</architecture_plan>`;
  if (chat === 'implementation') {
    const steps = plan(system, [{ role: 'user', content: 'Generate implementation plan' }]).toolCalls.at(-1)!.args.plan as string;
    system += `\n<implementation_plan>\n${steps}\n</implementation_plan>`;
  }
  return { text: plan(system, [{ role: 'user', content: correction }]).text };
}

const CASES = Object.values(CATALOGUE_VIEW).flatMap((p) =>
  p.needs.filter((n) => n.length > 1).flatMap((need) => need.filter((id) => PRODUCTS[id]).map((gone) => ({ product: p.id, gone, need }))),
);
const CHATS: Chat[] = ['requirements', 'architecture', 'implementation'];

describe('replies to a correction name what took a removed component’s place', () => {
  it('has products with a need of several choices to test', () => expect(CASES.length).toBeGreaterThanOrEqual(4));

  it.each(CASES.flatMap((c) => CHATS.map((chat) => [`${c.product} without ${c.gone} (${chat})`, c, chat] as const)))('%s', (_title, c, chat) => {
    const request = `${said(c.product)} with ${said(c.gone)} on my VPS, no domain, light load`;
    const { text } = replyTo(chat, request, `remove ${said(c.gone)}`);
    // One of the other choices took its place, named as such, with the need it fills.
    expect(text).toMatch(new RegExp(`put (${c.need.filter((x) => x !== c.gone).join('|')})[\\w-]* \\(.+\\) in place of ${c.gone}: ${c.product} needs one of `));
  });

  it('says Nextcloud gets PostgreSQL when MariaDB is removed, in the requirements chat', () => {
    const { text, model } = replyTo('requirements', 'Nextcloud with MariaDB and Redis on my VPS, no domain, light load', 'remove MariaDB');
    expect(text).toContain('What changed:\n- put postgres (PostgreSQL 16) in place of mariadb: nextcloud needs one of PostgreSQL 16, MariaDB 11.4 LTS, MySQL 8.4');
    expect(model?.components.map((m) => m.name)).toContain('postgres');
  });

  it('says plainly what a removal leaves unmet, and what cannot be changed and why', () => {
    // Mastodon takes Redis alone (Nextcloud takes Valkey in its place).
    const request = 'Mastodon with PostgreSQL and Redis on my VPS, no domain, light load';
    for (const chat of CHATS) {
      const { text } = replyTo(chat, request, 'Please remove Redis');
      expect({ chat, text }).toEqual({ chat, text: expect.stringMatching(/mastodon (goes without Redis 7\.4, which it needs|needs Redis)/) });
    }
    const none = replyTo('architecture', request, 'run it on Kubernetes');
    expect(none.text).toMatch(/^I can't make that change: these plans run one Docker Compose stack on one server/);
  });
});
