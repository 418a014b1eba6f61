import type { PlannerReply, Turn } from './plannerTypes';
import { REQUIREMENTS_SECTION } from '../../../shared/constants/planning';
import { parseRequirementsDocument } from '../../../shared/requirementsDocument';
import { EXISTING_SERVER, PRODUCTS, PROVIDERS, providerOf } from './knowledge';
import { alternativesFor } from './products';
import { composeStack, SYSTEM_DISK_GB, type Repository, type Stack } from './composer';
import type { RepositoryLayout } from './repositoryCompose';
import { Value } from 'typebox/value';
import { ServerFacts } from '../../../shared/stackModel';
import { readRequirementLines, readStackModel, renderArchitecturePlan, renderImplementationPlan, renderRequirements, readStackDefinition, type Unknowns } from './documents';
import { destinationInWords } from './backupSteps';
import { emptyFacts, extractFacts, type Facts } from './facts';
import { executionReply } from './executionPlanner';
import { documentationReply, validationReply, type DocumentationContext } from './validationPlanner';
import { devopsHelperReply, type HelperServers } from './devopsHelperPlanner';
import { CONTINUE_PROMPT, TOOL_NAMES } from '../toolNames';
import { panelEditsOf, replayEdits, stackModelOf, STACK_EDITS_TAG, STACK_MODEL_TAG } from './panelEdits';
import { modelChanges, unchangedText } from './planCorrections';
import { factsOfModel, modelOfStack, renderStack } from './stackModelBridge';
import { applyEach, opsBetween } from './modelOps';
import { describeOp } from './panelEdits';
import type { StackModel } from '../../../shared/stackModel';
import { PLANNING_PROMPTS } from '../../../shared/constants/planning';
import type { StackPlace } from './backupScripts';
import { placeOfDirectory, STACK_DIRECTORY_TAG } from './stackPlace';

/**
 * The offline planner's reasoning, free of LangChain: given the agent's role, the context the graph put
 * in the system prompt and the conversation, it answers what a DevOps engineer would say and which tool
 * it calls. offlineChatModel.ts streams the answer.
 */

export type AgentRole = 'requirements' | 'architect' | 'implementation' | 'analyzer' | 'execution' | 'validation' | 'documentation' | 'devops';

export type { PlannerReply, PlannerToolCall, Turn } from './plannerTypes';

/** The system prompt names the role on its first line, `Role: <role>`, and context in tagged blocks. */
export function roleOf(system: string): AgentRole | undefined {
  const m = system.match(/^Role:\s*([a-z]+)/m);
  return m && ['requirements', 'architect', 'implementation', 'analyzer', 'execution', 'validation', 'documentation', 'devops'].includes(m[1]!) ? (m[1] as AgentRole) : undefined;
}

export function contextBlock(system: string, tag: string): string | undefined {
  const m = system.match(new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`));
  const body = m?.[1]?.trim();
  return body ? body : undefined;
}

/** What the server sends the requirements agent for the spec's empty message (after an analysis). */
export { CONTINUE_PROMPT, TOOL_NAMES };

interface Question {
  key: keyof Unknowns;
  marker: string;
  text: string;
  open: (f: Facts) => boolean;
  assume: (f: Facts) => string;
  applyDefault: (f: Facts) => void;
}

/** "a, b or c". */
const orList = (names: string[]): string => (names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join(''));

/** The providers a new machine can be created at (every provider file but the existing server's), as a question lists them. */
const NEW_MACHINE_PROVIDERS = orList(Object.values(PROVIDERS).filter((p) => !p.existing).map((p) => p.shortName ?? p.label));

const QUESTIONS: Question[] = [
  {
    key: 'workload',
    marker: 'What should the server run',
    text: 'What should the server run? For example your own application (which language or framework?), n8n, a database (PostgreSQL, MySQL, MongoDB), a cache or queue (Redis, RabbitMQ), monitoring (Prometheus and Grafana) or log management (ELK).',
    // Software named and left out leaves nothing to run: asked (or the basic server assumed out loud), never put in silently.
    open: (f) => f.components.size === 0 && !f.basicServer && !f.custom.length && !f.hostTasks.size && !f.noContainers && !f.unknown.length,
    assume: () => 'a basic server with an Nginx web server, so there is something to check',
    applyDefault: (f) => void (f.basicServer = true),
  },
  {
    key: 'provider',
    marker: 'Where should it run',
    text: `Where should it run: an existing VPS you can reach over SSH (any provider), or a new machine on ${NEW_MACHINE_PROVIDERS}?`,
    open: (f) => f.provider === undefined,
    assume: () => 'an existing VPS of yours running Ubuntu 24.04',
    applyDefault: (f) => void (f.provider = EXISTING_SERVER.id),
  },
  {
    key: 'region',
    marker: 'Which region',
    text: 'Which region (or city) should the machine be in? Close to your users is best.',
    open: (f) => f.provider !== undefined && !providerOf(f.provider).existing && f.region === undefined,
    assume: (f) => `region ${providerOf(f.provider).defaultRegion}`,
    applyDefault: (f) => void (f.region = providerOf(f.provider).defaultRegion),
  },
  {
    key: 'domain',
    marker: 'Which domain should point',
    text: "Which domain should point at the server (e.g. app.example.com)? With a domain I'll put a reverse proxy with Let's Encrypt certificates in front; without one the stack is served over HTTP on the server's IP.",
    open: (f) =>
      f.domain === undefined && !f.noDomain && !f.noContainers &&
      (f.genericProxy || f.proxy !== undefined || f.tls || [...f.components].some((id) => PRODUCTS[id]?.asksDomain || PRODUCTS[id]?.tls === 'required')),
    assume: () => "no domain: served over HTTP on the server's IP",
    applyDefault: (f) => void (f.noDomain = true),
  },
  {
    key: 'load',
    marker: 'how much load do you expect',
    text: 'Roughly how much load do you expect (users or requests per second), and how much data will you keep (GB)? That sizes the machine and its disk.',
    open: (f) => f.load === undefined && f.storageGb === undefined && f.memoryGb === undefined && f.instanceType === undefined,
    assume: () => 'light load (up to about 100 concurrent users)',
    applyDefault: (f) => void (f.load = 'light (up to about 100 concurrent users)'),
  },
];

/** Keys of the technology stack that say what the application is and uses. */
const ANALYSIS_FACTS = ['language', 'other_languages', 'runtime', 'frameworks', 'databases', 'services', 'containerization'];

/**
 * The analysed repository, as the analysis stored it: the branch that was read (the one deployed), a
 * local repository (owner `local`), its layout and the environment names of the dialog. The facts text
 * names the application and its technology, except for a repository with its own compose file: that
 * file is the workload, so the databases it runs are not planned a second time.
 */
function analysisTexts(system: string): { texts: string[]; repository?: Repository; questions: string[] } {
  const raw = contextBlock(system, 'repository_analysis');
  if (!raw) return { texts: [], questions: [] };
  try {
    const a = JSON.parse(raw) as {
      repository?: { full_name?: string; default_branch?: string };
      branch?: string;
      repo_analysis?: { technology_stack?: Record<string, unknown> };
      user_questions?: { questions?: Record<string, string> };
      layout?: RepositoryLayout;
      env_names?: string[];
    };
    const questions = Object.keys(a.user_questions?.questions ?? {});
    const stack = a.repo_analysis?.technology_stack ?? {};
    const fullName = a.repository?.full_name;
    const repository: Repository | undefined = fullName
      ? {
          fullName,
          branch: a.branch ?? a.repository?.default_branch ?? 'main',
          ...(fullName.startsWith('local/') ? { local: true } : {}),
          ...(a.layout ? { layout: a.layout } : {}),
          ...(a.env_names?.length ? { envNames: a.env_names } : {}),
        }
      : undefined;
    if (a.layout?.compose) return { texts: [`my own app from its compose file${typeof stack.language === 'string' ? `. language: ${stack.language}` : ''}`], repository, questions };
    // What the code is, not what it is built on: base images (node:18-slim) are not images to run.
    const text = Object.entries(stack)
      .filter(([k]) => ANALYSIS_FACTS.includes(k))
      .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
      .join('. ');
    return { texts: [`my own app. ${text}`], repository, questions };
  } catch {
    return { texts: [], questions: [] };
  }
}

/**
 * The analyser's questions the requirements can answer, and their answers once they are known. The domain
 * is the one the person gave, also where the plan cannot route it (a repository's own compose file gets
 * no proxy: the requirements say so in a note).
 */
const ANALYSIS_ANSWERS: Array<{ question: RegExp; answer(stack: Stack, unknowns: Unknowns): string | undefined }> = [
  { question: /^Which domain/, answer: (stack, unknowns) => (unknowns.domain ? undefined : (stack.domain ?? (stack.facts.noDomain ? undefined : stack.facts.domain) ?? "No domain: served over HTTP on the server's IP")) },
  { question: /^Where should it run/, answer: (stack, unknowns) => (unknowns.provider ? undefined : stack.machine.providerLabel) },
];

/** The answers to the analysis's questions that the conversation has given (the analysis shows them). */
function analysisAnswers(questions: string[], stack: Stack, unknowns: Unknowns): Record<string, string> {
  const answers: Record<string, string> = {};
  for (const question of questions) {
    const answer = ANALYSIS_ANSWERS.find((a) => a.question.test(question))?.answer(stack, unknowns);
    if (answer) answers[question] = answer;
  }
  return answers;
}

const ENGLISH_NOTE = 'the offline planner answers in English';

/** What the planner says about software it does not know: by name, with the ways on, never a stand-in. */
export function unknownProductText(names: string[]): string[] {
  return names.map((name) => {
    const alternatives = alternativesFor(name);
    const ways = [
      `tell me the image to run, with the port it listens on, its volumes and environment (for example: "image ghcr.io/owner/${name.toLowerCase().split('/').pop()!.replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '')}:1.2.3 port 8080, data in /data")`,
      ...(alternatives.length ? [`take a catalogued alternative instead: ${alternatives.map((c) => `${c.label} (say "use ${c.aliases[0]!.replace(/[\\()?|[\]]/g, '')} instead of ${name}")`).join(' or ')}`] : []),
      'connect a language model (MODEL_PROVIDER with an OpenAI, Anthropic or OpenAI-compatible endpoint), which can plan software outside the catalogue',
      `or say "skip ${name}"`,
    ];
    return `I don't know ${name}: it is not in my offline catalogue, and I have put nothing in its place. To go on, ${ways.join('; ')}.`;
  });
}

function describeFacts(stack: Stack, unknowns: Unknowns): string[] {
  const lines: string[] = [];
  if (!unknowns.workload) {
    if (stack.hostOnly) lines.push(`Host only: ${[...stack.facts.hostTasks].join(', ') || 'ufw'} (no Docker, no containers)`);
    else lines.push(`Stack: ${[...stack.facts.custom.map((c) => `${c.image} (your image)`), ...stack.components.map((c) => c.label)].join(', ')}`);
  }
  if (stack.facts.skipped.length) lines.push(`Left out (not in my offline catalogue, nothing put in its place): ${stack.facts.skipped.join(', ')}`);
  if (stack.facts.excluded.size) lines.push(`Left out as you asked: ${[...stack.facts.excluded].map((id) => PRODUCTS[id]?.label ?? id).join(', ')}`);
  if (!unknowns.provider) lines.push(`Runs on: ${stack.machine.providerLabel}${unknowns.region ? '' : `, ${stack.machine.region}`}`);
  if (stack.domain) lines.push(`Domain: ${stack.domain}${stack.tls ? " with Let's Encrypt TLS" : ''}`);
  if (stack.facts.load) lines.push(`Load: ${stack.facts.load}`);
  if (stack.facts.backup?.destination) lines.push(`Backups: to ${destinationInWords(stack.facts.backup.destination)}`);
  for (const problem of stack.facts.backupProblems ?? []) lines.push(`Backup destination not taken: ${problem}`);
  return lines;
}

function requirementsReply(system: string, turns: Turn[], now: Date): PlannerReply {
  const userTexts = turns.filter((t) => t.role === 'user' && t.content.trim() && t.content !== CONTINUE_PROMPT).map((t) => t.content);
  const analysis = analysisTexts(system);
  const facts = extractFacts([...analysis.texts, ...userTexts]);
  const spoken = turns.filter((t) => t.role === 'assistant').map((t) => t.content).join('\n');
  // An unknown name is asked about once: answered with something else, the conversation goes on without it.
  const lastUser = turns.map((t) => t.role).lastIndexOf('user');
  const spokenBefore = turns.slice(0, Math.max(0, lastUser)).filter((t) => t.role === 'assistant').map((t) => t.content).join('\n');
  for (const name of [...facts.unknown]) {
    if (!spokenBefore.includes(`I don't know ${name}:`)) continue;
    facts.unknown = facts.unknown.filter((u) => u !== name);
    facts.skipped.push(name);
  }
  const unknowns: Unknowns = {};
  const toAsk: Question[] = [];
  const assumed: string[] = [];
  for (const q of QUESTIONS) {
    if (!q.open(facts)) continue;
    const askedBefore = spoken.includes(q.marker);
    if (askedBefore || facts.acceptsDefaults) {
      assumed.push(q.assume(facts));
      q.applyDefault(facts);
    } else {
      toAsk.push(q);
      unknowns[q.key] = true;
    }
  }
  // Words and the panel's controls are one history: an edit stands unless a later message changed what it decides.
  const wordsAt = (k: number) => modelOfStack(composeStack(extractFacts([...analysis.texts, ...userTexts.slice(0, k)]), { repository: analysis.repository }));
  const edited = replayEdits(composeStack(facts, { repository: analysis.repository }), panelEditsOf(contextBlock(system, STACK_EDITS_TAG)), { repository: analysis.repository }, {
    wordsAt,
    wordsFrom: (k) => modelOfStack(composeStack(extractFacts(userTexts.slice(k)))),
    messages: userTexts.length,
  });
  const stack = edited.stack;
  const document = renderRequirements(stack, unknowns, now);
  // A named workload missing from the plan keeps the requirements open, whatever defaults were accepted.
  const ready = toAsk.length === 0 && facts.unknown.length === 0;
  const unknownText = unknownProductText(facts.unknown);
  const languageNote = facts.language && !spoken.includes(ENGLISH_NOTE) ? [`(I read your message as ${facts.language}; ${ENGLISH_NOTE}.)`, ''] : [];
  const secrets = stack.secrets.map(({ name, description, required, secret_type }) => ({ name, description, required, secret_type }));
  const known = describeFacts(stack, unknowns);
  const refusedText = edited.refused.length ? ['', `Changes made in the panel or the plan chats that no longer apply: ${edited.refused.join('; ')}.`] : [];
  // What this message changed in the stack the person last saw (the stored model), with what took a removed component's place.
  const shown: StackModel | undefined = stackModelOf(contextBlock(system, STACK_MODEL_TAG));
  const changes = shown && userTexts.length ? modelChanges(shown, edited.model) : [];
  const changedText = changes.length ? ['What changed:', ...changes.map((c) => `- ${c}`), ''] : [];
  let text: string;
  if (!userTexts.length && !analysis.texts.length) {
    text = [
      "Hi! I'm the requirements gatherer. I'll turn what you need into a requirements document, then an architecture and a deployment plan.",
      '',
      ...toAsk.map((q, i) => `${i + 1}. ${q.text}`),
    ].join('\n');
  } else if (!ready) {
    text = [
      ...languageNote,
      ...changedText,
      known.length ? `Thanks. So far I have:\n${known.map((l) => `- ${l}`).join('\n')}` : 'Thanks.',
      ...(unknownText.length ? ['', ...unknownText] : []),
      ...refusedText,
      ...(toAsk.length ? ['', toAsk.length === 1 ? 'One question to complete the requirements:' : 'A few questions to complete the requirements:'] : []),
      ...toAsk.map((q, i) => `${i + 1}. ${q.text}`),
      ...(assumed.length ? ['', `Meanwhile I assumed ${assumed.join('; ')}.`] : []),
    ].join('\n');
  } else {
    text = [
      ...languageNote,
      ...changedText,
      'The requirements are complete:',
      ...known.map((l) => `- ${l}`),
      `- Machine: ${stack.machine.instanceType} (${stack.machine.vcpus} vCPU, ${stack.machine.memoryGb} GB RAM, ${stack.machine.diskGb} GB disk)`,
      ...(assumed.length ? ['', `Where you left it open I assumed ${assumed.join('; ')}. Tell me if any of that should change.`] : []),
      ...refusedText,
      ...stack.notes.map((n) => `\nNote: ${n}`),
      '',
      `Please add the ${secrets.filter((s) => s.required && s.name !== 'GITHUB_TOKEN').length} required secrets under User Secrets (${secrets.map((s) => s.name).join(', ')}). When the Collected Requirements look right, confirm to move on to the architecture.`,
    ].join('\n');
  }
  return {
    text,
    toolCalls: [
      {
        name: TOOL_NAMES.requirements,
        args: {
          document,
          secrets,
          ready_to_continue: ready,
          stack_model: edited.model,
          // How many of the person's messages this model read: a control used before the next turn is placed after them.
          words_read: userTexts.length,
          ...(userTexts.length && analysis.questions.length ? { analysis_answers: analysisAnswers(analysis.questions, stack, unknowns) } : {}),
        },
      },
    ],
  };
}

/**
 * Facts of a requirements document's sections. Its 'Disk: N GB' is the machine's whole disk as the
 * requirements sized it, not data to store: read as data, the system's share would be added again and
 * the architecture would get a bigger disk than the requirements said.
 */
function requirementsFacts(sections: string[], cloud: string[]): Facts {
  const facts = extractFacts([...sections, ...cloud], emptyFacts(), { document: true });
  readRequirementLines(sections[0] ?? '', sections[1] ?? '', facts);
  facts.domain ??= facts.domains[0]?.host;
  const disk = sections[2]?.match(/^- Disk: (\d+) GB$/m);
  if (disk) facts.storageGb = Math.max(0, Number(disk[1]) - SYSTEM_DISK_GB) || undefined;
  const volume = sections[2]?.match(/^- Data volume: (\d+) GB/m);
  if (volume) facts.storageGb = Number(volume[1]);
  return facts;
}

/** Facts of the confirmed requirements, then what was asked in this agent's own thread. */
function factsForPlanning(system: string, turns: Turn[], base: 'requirements' | 'architecture'): { facts: Facts; repository?: Repository } | undefined {
  const own = turns.filter((t) => t.role === 'user' && t.content.trim()).map((t) => t.content);
  if (base === 'architecture') {
    const plan = contextBlock(system, 'architecture_plan');
    const def = plan ? readStackDefinition(plan) : undefined;
    // The stack definition names the repository and its branch; the analysis adds how it is built.
    const analysed = analysisTexts(system).repository;
    if (def) return { facts: extractFacts(own, def.facts), repository: def.repository && { ...(analysed?.fullName === def.repository.fullName ? analysed : {}), ...def.repository } };
  }
  const doc = contextBlock(system, 'requirements_document');
  if (!doc) return undefined;
  // The model the requirements were rendered from holds what the text cannot (what must stay private, the panel's removals).
  const model = stackModelOf(contextBlock(system, STACK_MODEL_TAG));
  if (model) {
    const facts = extractFacts(own, factsOfModel(model));
    facts.acceptsDefaults = true;
    const repoLine = doc.match(/built from ([\w.-]+\/[\w.-]+)/);
    const repository = analysisTexts(system).repository ?? (repoLine ? { fullName: repoLine[1]!, branch: '' } : undefined);
    return { facts, repository };
  }
  const parsed = parseRequirementsDocument(doc);
  const sections = [REQUIREMENTS_SECTION.requiredStack, REQUIREMENTS_SECTION.configuration, REQUIREMENTS_SECTION.scale].map((s) => parsed.sections[s] ?? '');
  const cloud = ['Provider', 'Compute', 'Region'].map((f) => parsed.cloud[f] ?? '');
  const analysis = analysisTexts(system);
  const facts = extractFacts(own, requirementsFacts(sections, cloud));
  facts.acceptsDefaults = true;
  if (!facts.domain) facts.noDomain = true;
  const repoLine = sections[0]!.match(/built from ([\w.-]+\/[\w.-]+)/);
  // Without the analysis, the branch is not known: the repository's default branch (HEAD) is cloned.
  const repository = analysis.repository ?? (repoLine ? { fullName: repoLine[1]!, branch: '' } : undefined);
  return { facts, repository };
}

/**
 * A correction to a plan already made: the plan is rendered again from the corrected model and the reply
 * says what changed; words that change nothing leave the plan as it was and say what can be changed. The
 * generate prompt (and a first plan) gets the summary instead (undefined here).
 */
function correctionReply(system: string, turns: Turn[], kind: 'architecture' | 'implementation', stack: Stack, plan: string): PlannerReply | undefined {
  const said = [...turns].reverse().find((t) => t.role === 'user')?.content.trim() ?? '';
  const generate = kind === 'architecture' ? PLANNING_PROMPTS.generateArchitecturePlan : PLANNING_PROMPTS.generateImplementationPlan;
  const before = readStackModel(contextBlock(system, kind === 'architecture' ? 'architecture_plan' : 'implementation_plan') ?? '');
  if (!before || !said || said === generate) return undefined;
  const changes = modelChanges(before, modelOfStack(stack));
  if (!changes.length) return { text: unchangedText(said, kind), toolCalls: [] };
  if (kind === 'architecture') {
    const where = 'The Cloud Architecture Plan view has the new docker-compose.yml, files and diagram';
    return { text: [`I changed the architecture:`, ...changes.map((c) => `- ${c}`), '', `${where}. Ask for another change, or confirm.`].join('\n'), toolCalls: [{ name: TOOL_NAMES.architecture, args: { plan } }] };
  }
  // The steps are made from the architecture: a change to the stack is rendered into both, the architecture
  // saved first, so its compose file, diagram and the steps that deploy them stay one stack.
  return {
    text: [
      'I changed the architecture and the steps:',
      ...changes.map((c) => `- ${c}`),
      '',
      'The Cloud Architecture Plan has the new docker-compose.yml, files and diagram, and the Implementation Plan view the steps made again from it. Ask for another change, or confirm.',
    ].join('\n'),
    toolCalls: [
      { name: TOOL_NAMES.architecture, args: { plan: renderArchitecturePlan(stack) } },
      { name: TOOL_NAMES.implementation, args: { plan } },
    ],
  };
}

/**
 * What the inspection of the target server found (the `server_facts` block the service sends from the
 * stack model), else what the architecture plan was made with: the plan avoids the ports it uses.
 */
function serverFactsOf(system: string): ServerFacts | undefined {
  const raw = contextBlock(system, 'server_facts');
  if (raw) {
    try {
      const facts: unknown = JSON.parse(raw);
      if (Value.Check(ServerFacts, facts)) return facts;
    } catch {
      // A block that does not parse is no facts: the plan is made without them.
    }
  }
  const architecture = contextBlock(system, 'architecture_plan');
  return architecture ? readStackModel(architecture)?.serverFacts : undefined;
}

/** The repository the plans build, as the analysis, the architecture plan or the requirements name it. */
function repositoryOf(system: string): Repository | undefined {
  const analysed = analysisTexts(system).repository;
  const plan = contextBlock(system, 'architecture_plan');
  const def = plan ? readStackDefinition(plan)?.repository : undefined;
  if (def) return { ...(analysed?.fullName === def.fullName ? analysed : {}), ...def };
  const repoLine = contextBlock(system, 'requirements_document')?.match(/built from ([\w.-]+\/[\w.-]+)/);
  return analysed ?? (repoLine ? { fullName: repoLine[1]!, branch: '' } : undefined);
}

/**
 * A turn of the architecture or implementation chat on the project's stored stack model (the stack_model
 * block, which every chat's corrections changed): the plans are rebuilt from that model, never from
 * re-reading this chat's thread, and this turn's message is read as a correction to it. The correction
 * goes back as stack operations (the tools a real model calls), before the plans rendered from the model
 * they make, so the next rebuild in any chat starts from it.
 */
function chatOnModel(system: string, turns: Turn[], kind: 'architecture' | 'implementation'): PlannerReply | undefined {
  const base = stackModelOf(contextBlock(system, STACK_MODEL_TAG));
  if (!base) return undefined;
  const serverFacts = serverFactsOf(system);
  const options = { repository: repositoryOf(system), slug: contextBlock(system, 'project_name'), ...placeOf(system), ...(serverFacts ? { serverFacts } : {}) };
  const said = [...turns].reverse().find((t) => t.role === 'user')?.content.trim() ?? '';
  const generate = kind === 'architecture' ? PLANNING_PROMPTS.generateArchitecturePlan : PLANNING_PROMPTS.generateImplementationPlan;
  const asks = said && said !== generate ? [said] : [];
  // Both sides composed the same way, so only what the words changed differs (never the composer's own rounding).
  const ops = asks.length ? opsBetween(modelOfStack(renderStack(base, options)), modelOfStack(composeStack(extractFacts(asks, factsOfModel(base)), options))) : [];
  const { model, applied, refused } = applyEach(base, ops);
  const stack = renderStack(model, options);
  const opCalls = applied.map(({ op, ...args }) => ({ name: op, args: args as Record<string, unknown> }));
  const couldNot = refused.map((r) => `- ${describeOp(r.op)}: ${r.why}`);
  const architecture = renderArchitecturePlan(stack);
  const implementation = kind === 'implementation' ? renderImplementationPlan(stack) : '';
  const shownPlan = contextBlock(system, kind === 'architecture' ? 'architecture_plan' : 'implementation_plan');
  const shown = shownPlan ? readStackModel(shownPlan) : undefined;
  if (!shown || !asks.length) return kind === 'architecture' ? architectureSummary(stack, architecture, opCalls) : implementationSummary(implementation, opCalls);
  const changes = modelChanges(shown, modelOfStack(stack));
  if (!changes.length && !applied.length) {
    const text = couldNot.length ? [`I can't make that change:`, ...couldNot, '', 'The plan is as it was.'].join('\n') : unchangedText(said, kind);
    return { text, toolCalls: [] };
  }
  const lines = [...changes.map((c) => `- ${c}`), ...(couldNot.length ? ['', 'What I could not change:', ...couldNot] : [])];
  if (kind === 'architecture') {
    const where = 'The Cloud Architecture Plan view has the new docker-compose.yml, files and diagram';
    return { text: ['I changed the architecture:', ...lines, '', `${where}. Ask for another change, or confirm.`].join('\n'), toolCalls: [...opCalls, { name: TOOL_NAMES.architecture, args: { plan: architecture } }] };
  }
  // The steps are made from the architecture: a change to the stack is rendered into both, the architecture
  // saved first, so its compose file, diagram and the steps that deploy them stay one stack.
  return {
    text: [
      'I changed the architecture and the steps:',
      ...lines,
      '',
      'The Cloud Architecture Plan has the new docker-compose.yml, files and diagram, and the Implementation Plan view the steps made again from it. Ask for another change, or confirm.',
    ].join('\n'),
    toolCalls: [...opCalls, { name: TOOL_NAMES.architecture, args: { plan: architecture } }, { name: TOOL_NAMES.implementation, args: { plan: implementation } }],
  };
}

type ToolCalls = PlannerReply['toolCalls'];

function architectureSummary(stack: Stack, plan: string, before: ToolCalls = []): PlannerReply {
  const m = stack.machine;
  const text = [
    `Here is the architecture: ${stack.services.length} containers with Docker Compose on one ${m.providerLabel} machine (${m.instanceType}, ${m.vcpus} vCPU, ${m.memoryGb} GB RAM, ${m.diskGb} GB disk) in ${m.region}.`,
    '',
    ...stack.services.map((s) => `- ${s.name}: ${s.image === 'build' ? 'built from the repository' : s.image}${s.healthcheck ? ', with a healthcheck' : ''}`),
    ...(stack.routes.length ? ['', `Traffic enters through ${stack.components.find((c) => c.category === 'proxy')?.label}: ${stack.routes.map((r) => `${r.host} → ${r.service}`).join(', ')}.`] : []),
    '',
    'The Cloud Architecture Plan view has the diagram, the docker-compose.yml and every configuration file. Ask me for changes, or confirm to get the implementation plan.',
  ].join('\n');
  return { text, toolCalls: [...before, { name: TOOL_NAMES.architecture, args: { plan } }] };
}

function implementationSummary(plan: string, before: ToolCalls = []): PlannerReply {
  const titles = [...plan.matchAll(/^## Step (\d+): (.+)$/gm)].map((m) => `${m[1]}. ${m[2]}`);
  const text = [
    `The implementation plan has ${titles.length} steps, each with the exact commands the execution stage will run:`,
    '',
    ...titles,
    '',
    'Secrets are read from User Secrets at run time and never written into the plan. Ask me to change a step, or confirm to start execution.',
  ].join('\n');
  return { text, toolCalls: [...before, { name: TOOL_NAMES.implementation, args: { plan } }] };
}

/**
 * What the architecture and implementation chats differ in: the confirmed stage they plan from, what they
 * say when it is missing, how a stack becomes their plan and how they sum that plan up. One reply serves
 * both, so a step added to how a plan is made (a correction, server facts) reaches both chats at once.
 */
interface PlanningStage {
  kind: 'architecture' | 'implementation';
  input: 'requirements' | 'architecture';
  missingInput: string;
  render: (stack: Stack) => string;
  summary: (stack: Stack, plan: string) => PlannerReply;
}

const ARCHITECT_STAGE: PlanningStage = {
  kind: 'architecture',
  input: 'requirements',
  missingInput: 'I need the requirements first: finish the Requirements stage and confirm it, then ask me for the architecture plan.',
  render: renderArchitecturePlan,
  summary: architectureSummary,
};

const IMPLEMENTATION_STAGE: PlanningStage = {
  kind: 'implementation',
  input: 'architecture',
  missingInput: 'I need a confirmed architecture plan first: confirm the architecture stage, then ask me for the implementation plan.',
  render: renderImplementationPlan,
  summary: (_stack, plan) => implementationSummary(plan),
};

/**
 * Where the project's stack lives on the server, from the `stack_directory` block the planning service
 * sends (stackPlace.ts): a block that is not a safe stack directory is refused, and the plan renders the
 * legacy place rather than a path the shell could misread.
 */
function placeOf(system: string): { place?: StackPlace } {
  const dir = contextBlock(system, STACK_DIRECTORY_TAG);
  try {
    return dir ? { place: placeOfDirectory(dir) } : {};
  } catch {
    return {};
  }
}

function planningReply(stage: PlanningStage, system: string, turns: Turn[]): PlannerReply {
  const onModel = chatOnModel(system, turns, stage.kind);
  if (onModel) return onModel;
  const input = factsForPlanning(system, turns, stage.input);
  if (!input) return { text: stage.missingInput, toolCalls: [] };
  const serverFacts = serverFactsOf(system);
  const stack = composeStack(input.facts, { repository: input.repository, slug: contextBlock(system, 'project_name'), ...placeOf(system), ...(serverFacts ? { serverFacts } : {}) });
  const plan = stage.render(stack);
  return correctionReply(system, turns, stage.kind, stack, plan) ?? stage.summary(stack, plan);
}

function analyzerReply(system: string): PlannerReply {
  const raw = contextBlock(system, 'repository_facts');
  if (!raw) return { text: 'I could not read the repository.', toolCalls: [] };
  const stored = JSON.parse(raw) as {
    repository: { full_name: string };
    branch: string;
    repo_analysis: { technology_stack: Record<string, unknown> };
    files?: string[];
    env_names?: string[];
  };
  const repo = { full_name: stored.repository.full_name, branch: stored.branch, files: stored.files ?? [], env_names: stored.env_names ?? [] };
  const stack = stored.repo_analysis.technology_stack;
  const entries = Object.entries(stack).map(([k, v]) => `- ${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
  const hasDockerfile = repo.files.some((f) => /(^|\/)Dockerfile/.test(f));
  const questions: Record<string, string> = {
    'Which domain should the application be served on?': '',
    'Where should it run (existing VPS, AWS, DigitalOcean, Hetzner, Google Cloud, Azure)?': '',
  };
  if (!hasDockerfile) questions['The repository has no Dockerfile: should I plan one for you?'] = '';
  const analysis = [
    `## ${repo.full_name} (${repo.branch})`,
    '',
    '### Technology stack',
    ...entries,
    '',
    '### Deployment-relevant files',
    ...repo.files.map((f) => `- ${f}`),
    ...(repo.env_names.length ? ['', '### Environment', `Variables provided (values stored as secrets, not shown): ${repo.env_names.join(', ')}`] : []),
  ].join('\n');
  const deployment_plan = {
    prerequisites: ['A server or cloud account', ...(hasDockerfile ? [] : ['A Dockerfile for the application'])],
    deployment_steps: ['Build the image from the repository', 'Start it with its services using Docker Compose', 'Put a reverse proxy with TLS in front'],
    post_deployment: ['Check the healthchecks', 'Set up backups of the data volumes'],
    scaling_considerations: ['Move to a larger machine first; split the database onto its own host when it dominates'],
  };
  const text = [
    `I analysed ${repo.full_name} on ${repo.branch}:`,
    ...entries,
    '',
    `Files that matter for deployment: ${repo.files.length ? repo.files.join(', ') : 'none found'}.`,
    hasDockerfile ? 'It has a Dockerfile, so the app can be built as is.' : 'It has no Dockerfile yet; the plan will need one.',
  ].join('\n');
  return {
    text,
    toolCalls: [
      {
        name: TOOL_NAMES.analysis,
        args: { analysis, user_questions: { reason: 'Deployment details the repository cannot tell', questions }, deployment_plan },
      },
    ],
  };
}

/** What the offline planner says next, for the role its system prompt names. */
export function plan(system: string, turns: Turn[], now = new Date()): PlannerReply {
  const role = roleOf(system) ?? 'requirements';
  // After its own tool call has been answered, the planner has nothing more to add.
  const last = turns[turns.length - 1];
  if (last?.role === 'tool') return { text: '', toolCalls: [] };
  switch (role) {
    case 'requirements':
      return requirementsReply(system, turns, now);
    case 'architect':
      return planningReply(ARCHITECT_STAGE, system, turns);
    case 'implementation':
      return planningReply(IMPLEMENTATION_STAGE, system, turns);
    case 'analyzer':
      return analyzerReply(system);
    case 'execution':
      return executionReply(JSON.parse(contextBlock(system, 'execution_steps') ?? '[]'), turns);
    case 'validation':
      return validationReply(
        JSON.parse(contextBlock(system, 'execution_steps') ?? '[]'),
        JSON.parse(contextBlock(system, 'validation_steps') ?? '[]'),
        Boolean(contextBlock(system, 'validation_plan')),
        turns,
        contextBlock(system, 'implementation_plan') ?? '',
      );
    case 'documentation':
      return documentationReply(JSON.parse(contextBlock(system, 'documentation_context') ?? '{}') as DocumentationContext);
    case 'devops':
      return devopsHelperReply(turns, JSON.parse(contextBlock(system, 'servers') ?? '{"servers":[],"services":[]}') as HelperServers);
  }
}
