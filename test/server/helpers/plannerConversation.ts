import YAML from 'yaml';
import { plan, TOOL_NAMES, type Turn } from '../../../src/server/agents/offline/planner';
import type { ServerFacts } from '../../../src/shared/stackModel';

/** Plays conversations with the offline planner's agents, as the graph does: requirements, architecture, implementation. */

export const SYSTEM = {
  requirements: 'Role: requirements\nYou gather requirements.',
  architect: (doc: string) => `Role: architect\n<requirements_document>\n${doc}\n</requirements_document>`,
  implementation: (doc: string, arch: string) =>
    `Role: implementation\n<requirements_document>\n${doc}\n</requirements_document>\n<architecture_plan>\n${arch}\n</architecture_plan>`,
  /** What the inspection of the target server found, as the planning service sends it. */
  serverFacts: (facts: ServerFacts | undefined) => (facts ? `\n<server_facts>\n${JSON.stringify(facts)}\n</server_facts>` : ''),
};

export interface Conversation {
  document: string;
  ready: boolean;
  secrets: Array<{ name: string }>;
  replies: string[];
}

/** Each answer is sent after the planner's reply to the previous one. */
export function converse(answers: string[]): Conversation {
  const turns: Turn[] = [];
  const replies: string[] = [];
  let last: Record<string, unknown> = {};
  for (const answer of answers) {
    turns.push({ role: 'user', content: answer });
    const reply = plan(SYSTEM.requirements, turns);
    replies.push(reply.text);
    turns.push({ role: 'assistant', content: reply.text });
    const call = reply.toolCalls.find((c) => c.name === TOOL_NAMES.requirements);
    if (!call) throw new Error(`the requirements agent called no ${TOOL_NAMES.requirements}: ${reply.text}`);
    last = call.args;
  }
  return { document: last.document as string, ready: last.ready_to_continue as boolean, secrets: last.secrets as Array<{ name: string }>, replies };
}

export interface Plans {
  architecture: string;
  implementation: string;
  /** The docker-compose.yml of the architecture plan ('' for a host-only plan). */
  compose: string;
  /** The configuration files of the architecture plan. */
  files: Array<{ path: string; content: string }>;
}

/** The architecture and implementation plans made from a requirements document. */
export function plans(document: string, serverFacts?: ServerFacts): Plans {
  const arch = plan(SYSTEM.architect(document) + SYSTEM.serverFacts(serverFacts), [{ role: 'user', content: 'Generate architecture plan' }]);
  const architecture = arch.toolCalls[0]!.args.plan as string;
  const impl = plan(SYSTEM.implementation(document, architecture) + SYSTEM.serverFacts(serverFacts), [{ role: 'user', content: 'Generate implementation plan' }]);
  const implementation = impl.toolCalls[0]!.args.plan as string;
  const compose = architecture.match(/## docker-compose.yml\n\n```yaml\n([\s\S]*?)\n```/)?.[1] ?? '';
  const files = [...architecture.matchAll(/^### (\S+)\n\n```\w*\n([\s\S]*?)\n```/gm)].map((m) => ({ path: m[1]!, content: `${m[2]!}\n` }));
  return { architecture, implementation, compose, files };
}

export function servicesOf(compose: string): string[] {
  return compose ? Object.keys((YAML.parse(compose) as { services: object }).services).sort() : [];
}
