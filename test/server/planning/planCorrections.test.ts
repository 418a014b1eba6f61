import { plan, TOOL_NAMES, type Turn } from '../../../src/server/agents/offline/planner';
import { converse, plans, SYSTEM } from '../helpers/plannerConversation';
import { BASE_REQUEST, CORRECTIONS, publishedBy } from '../helpers/corrections';

/**
 * The architecture and implementation assistants take corrections through the stack model: the plan is
 * rendered again and the reply says what changed; words that change nothing say so and why, never the
 * summary again.
 */

const requirements = converse(['Nextcloud with MariaDB, Redis and Adminer behind Caddy at cloud.example.org on my VPS, light load']).document;

function architect(messages: string[]): { replies: string[]; plan: string } {
  const turns: Turn[] = [];
  let current = '';
  const replies: string[] = [];
  for (const message of messages) {
    turns.push({ role: 'user', content: message });
    const system = `${SYSTEM.architect(requirements)}${current ? `\n<architecture_plan>\n${current}\n</architecture_plan>` : ''}`;
    const reply = plan(system, turns);
    replies.push(reply.text);
    turns.push({ role: 'assistant', content: reply.text });
    const saved = reply.toolCalls.find((c) => c.name === TOOL_NAMES.architecture);
    if (saved) current = saved.args.plan as string;
  }
  return { replies, plan: current };
}

describe('corrections to the architecture plan', () => {
  it('are taken through the model and said as changes, not as the summary again', () => {
    const { replies, plan: result } = architect(['Generate architecture plan', 'keep Adminer private', 'remove Redis', 'serve it at files.example.net instead']);
    expect(replies[0]).toContain('Here is the architecture');
    expect(replies[1]).toMatch(/^I changed the architecture:\n- adminer: no longer published.*\n- adminer: kept private/);
    // Nextcloud takes Valkey where Redis is removed: said as the replacement.
    expect(replies[2]).toMatch(/- put valkey .* in place of redis: nextcloud needs one of/);
    expect(replies[3]).toMatch(/files\.example\.net/);
    for (const r of replies.slice(1)) expect(r).not.toContain('Here is the architecture');
    expect(result).not.toMatch(/reverse_proxy adminer:/);
    expect(result).not.toMatch(/^\s+redis:$/m);
  });

  it('say plainly what cannot be changed and why, and leave the plan as it was', () => {
    const first = architect(['Generate architecture plan']).plan;
    const { replies, plan: after } = architect(['Generate architecture plan', 'run it on Kubernetes with two nodes']);
    expect(replies[1]).toMatch(/^I can't make that change: these plans run one Docker Compose stack on one server; an orchestrator is not something I can plan; these plans run on one server/);
    expect(replies[1]).toContain('What I can change here');
    expect(after).toBe(first);
    const vague = architect(['Generate architecture plan', 'make it better']);
    expect(vague.replies[1]).toMatch(/^I found nothing to change in the architecture from that, so the plan is as it was\./);
  });
});

describe('corrections to the implementation plan', () => {
  it('re-plan the steps from the corrected model, or say that a step is changed in the execution stage', () => {
    const architecture = architect(['Generate architecture plan']).plan;
    const turns: Turn[] = [{ role: 'user', content: 'Generate implementation plan' }];
    const first = plan(SYSTEM.implementation(requirements, architecture), turns);
    const implementation = first.toolCalls[0]!.args.plan as string;
    turns.push({ role: 'assistant', content: first.text }, { role: 'user', content: 'change step 3 to use rsync' });
    const withPlan = `${SYSTEM.implementation(requirements, architecture)}\n<implementation_plan>\n${implementation}\n</implementation_plan>`;
    const unchanged = plan(withPlan, turns);
    expect(unchanged.toolCalls).toEqual([]);
    expect(unchanged.text).toContain("a single step's commands are changed in the execution stage");
    turns.push({ role: 'assistant', content: unchanged.text }, { role: 'user', content: 'keep Adminer private' });
    const changed = plan(withPlan, turns);
    expect(changed.text).toMatch(/^I changed the architecture and the steps:\n- adminer/);
    expect(changed.toolCalls.map((c) => c.name)).toEqual([TOOL_NAMES.architecture, TOOL_NAMES.implementation]);
  });

  // Each typical correction said to the implementation assistant reaches the architecture plan (its compose
  // file, proxy config and diagram) as well as the steps, through the same stack model.
  it.each(CORRECTIONS)('%s: "%s" re-renders the architecture and the steps', (_name, said, check) => {
    const base = converse([BASE_REQUEST]).document;
    let architecture = plans(base).architecture;
    const turns: Turn[] = [{ role: 'user', content: 'Generate implementation plan' }];
    const first = plan(SYSTEM.implementation(base, architecture), turns);
    let implementation = first.toolCalls[0]!.args.plan as string;
    turns.push({ role: 'assistant', content: first.text });
    // Sentences as messages of their own ("keep Adminer private." then "Actually, make Adminer public"), each saved as the service saves it.
    for (const message of said.split(/(?<=\.) /)) {
      turns.push({ role: 'user', content: message });
      const changed = plan(`${SYSTEM.implementation(base, architecture)}\n<implementation_plan>\n${implementation}\n</implementation_plan>`, turns);
      turns.push({ role: 'assistant', content: changed.text });
      expect(changed.text).toMatch(/^I changed the architecture and the steps:/);
      const [arch, steps] = changed.toolCalls;
      expect([arch?.name, steps?.name]).toEqual([TOOL_NAMES.architecture, TOOL_NAMES.implementation]);
      architecture = arch!.args.plan as string;
      implementation = steps!.args.plan as string;
    }
    check(publishedBy(architecture));
    // The steps deploy the same stack: every service of the architecture's compose file is started by them.
    for (const service of publishedBy(architecture).services) expect(implementation).toContain(service);
  });
});
