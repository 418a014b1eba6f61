import YAML from 'yaml';
import type { Step } from '../../../shared/api/execution';
import { DOCUMENTATION } from '../../../shared/constants/documentation';
import { withoutUnbackedClaims } from '../../agents/verifier/claimCheck';
import type { PlanArtifacts, TargetFacts } from '../../agents/verifier/types';
import { parseReadback, type DeployedFacts, type ServerReadback } from '../serverReadback/parseReadback';
import { readbackServer } from '../serverReadback/readbackCommand';
import { utc } from './validationResults';

/**
 * What the documents say about the server, rendered when they are read from what the server said: the
 * read-back check's latest output (its facts and the files as deployed) and the execution steps that ran.
 * A claim in the writer's text that neither backs is left out (the verifier's claims, agents/verifier/
 * claimCheck.ts); a configuration file in it is replaced by the one read back.
 */

export interface ReadBack extends ServerReadback {
  readAt: string | null;
}

/** The latest completed read-back check of the validation steps, read; none when it has not run. */
export function latestReadback(validation: Step[], redact?: (text: string) => string): ReadBack | undefined {
  const done = validation
    .filter((s) => s.status === 'completed' && readbackServer(s.command, redact) !== undefined)
    .sort((a, b) => (a.finished_at ?? '').localeCompare(b.finished_at ?? ''))
    .at(-1);
  if (!done) return undefined;
  return { ...parseReadback(readbackServer(done.command, redact)!, done.output ?? ''), readAt: done.finished_at ?? null };
}

/** The verifier's view of the server's facts. */
export function targetFactsOf(f: DeployedFacts): TargetFacts {
  return {
    ...(f.listening ? { portsInUse: f.listening.map((p) => ({ port: p.port, protocol: p.protocol, ...(p.process ? { holder: p.process } : {}) })) } : {}),
    ...(f.os ? { os: f.os } : {}),
    ...(f.dockerVersion ? { dockerVersion: f.dockerVersion } : {}),
    ...(f.composeVersion ? { composeVersion: f.composeVersion } : {}),
    ...(f.diskFreeGb !== undefined ? { freeDiskGb: f.diskFreeGb } : {}),
    ...(f.sshd?.passwordauthentication ? { sshPasswordAuthentication: f.sshd.passwordauthentication === 'yes' } : {}),
    ...(f.firewallActive !== undefined ? { firewallActive: f.firewallActive } : {}),
    ...(f.cpus !== undefined ? { cpus: f.cpus } : {}),
    ...(f.memoryGb !== undefined ? { memoryGb: f.memoryGb } : {}),
    tlsCertificates: f.certificates.length,
  };
}

/** The compose projects this project deployed: those whose folder its executed steps name (all when none does). */
export function ourProjects(readback: ServerReadback, executed: Step[]): string[] {
  const commands = executed.map((s) => s.command ?? '').join('\n');
  const named = readback.facts.composeProjects.filter((p) => p.workingDir && new RegExp(`${p.workingDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.-])`).test(commands));
  return (named.length ? named : readback.facts.composeProjects).map((p) => p.name);
}

const isCompose = (text: string): boolean => {
  try {
    const parsed = YAML.parse(text) as { services?: unknown } | null;
    return typeof parsed?.services === 'object' && parsed.services !== null;
  } catch {
    return false;
  }
};

/** Fenced blocks that are configuration files a server runs: compose files, Caddyfiles, nginx configurations. */
const CONFIG_LANGUAGES = /^(caddyfile|caddy|nginx|conf)$/i;

/**
 * The writer's text with every configuration file it shows replaced by a pointer to the file as deployed
 * (or a note that it was not read back), since what a plan said is not what runs after a step changed.
 */
function withoutPlannedFiles(text: string, readBack: boolean): string {
  const pointer = readBack
    ? `_The file as deployed, read back from the server, is under "${DOCUMENTATION.serverHeading}"._`
    : '_Not shown: the files as deployed were not read back from the server._';
  return text.replace(/^```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm, (block, lang: string, body: string) =>
    ((/^ya?ml$/i.test(lang) || lang === '') && isCompose(body)) || CONFIG_LANGUAGES.test(lang) ? pointer : block,
  );
}

/** What backs a claim after the deploy: the steps that ran, the files read back and the server's facts. */
export function evidenceOf(executed: Step[], readback: ReadBack | undefined): PlanArtifacts {
  const ours = readback ? new Set(ourProjects(readback, executed)) : new Set<string>();
  const files = readback?.files.filter((f) => ours.has(f.project)) ?? [];
  const compose = files.find((f) => isCompose(f.content));
  return {
    steps: executed.filter((s) => s.status === 'completed' && s.command).map((s) => ({ number: s.step_number, title: s.description, script: s.command! })),
    files: files.map((f) => ({ path: f.path, content: f.content })),
    ...(compose ? { composeYaml: compose.content } : {}),
    secrets: [],
    documents: [],
    ...(readback ? { target: targetFactsOf(readback.facts) } : {}),
  };
}

/** The writer's text as rendered after the deploy: unbacked claims and planned configuration files left out. */
export function renderedFromServer(text: string, evidence: PlanArtifacts, readBack: boolean): string {
  return withoutUnbackedClaims(withoutPlannedFiles(text, readBack), evidence).text;
}

const fence = (content: string): string => {
  let ticks = '```';
  while (content.includes(ticks)) ticks += '`';
  return ticks;
};
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
const SSH_SHOWN = ['passwordauthentication', 'permitrootlogin', 'pubkeyauthentication', 'kbdinteractiveauthentication', 'permitemptypasswords', 'port'];

/** The facts as rows: what each is, and what the server said. */
export function factRows(f: DeployedFacts): Array<[string, string]> {
  const rows: Array<[string, string | undefined]> = [
    ['Operating system', f.os],
    ['Docker Engine', f.dockerVersion],
    ['Compose', f.compose],
    ['CPUs', f.cpus?.toString()],
    ['Memory', f.memoryGb !== undefined ? `${f.memoryGb} GB` : undefined],
    ['Disk (/)', f.diskTotalGb !== undefined ? `${f.diskTotalGb} GB, ${f.diskFreeGb ?? '?'} GB free` : undefined],
    ['SSH (`sshd -T`)', f.sshd ? SSH_SHOWN.filter((k) => f.sshd![k]).map((k) => `${k} ${f.sshd![k]}`).join(', ') : 'not readable (needs root)'],
    ['Firewall', Object.keys(f.firewall).length ? `${Object.entries(f.firewall).map(([k, v]) => `${k}: ${v}`).join(', ')} (${f.firewallActive ? 'filters incoming traffic' : 'does not filter incoming traffic'})` : 'none found'],
    ['Listening ports', f.listening ? [...new Set(f.listening.map((p) => `${p.port}/${p.protocol}${p.process ? ` (${p.process})` : ''}`))].join(', ') || 'none' : undefined],
    ['TLS certificates', f.certificates.length ? f.certificates.map((c) => `${c.subject ?? '?'} until ${c.notAfter ?? '?'} (${c.source})`).join('; ') : 'none'],
  ];
  return rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== '');
}

/** The documentation's section: the facts as read, and every file of this project's stack as deployed. */
export function serverSection(readback: ReadBack | undefined, executed: Step[]): string {
  const heading = `## ${DOCUMENTATION.serverHeading}`;
  if (!readback) return [heading, '', 'Not read back yet: the read-back check of the validation stage has not run, so nothing here states what the server has or runs.'].join('\n');
  const ours = new Set(ourProjects(readback, executed));
  const files = readback.files.filter((f) => ours.has(f.project));
  return [
    heading,
    '',
    `Read from ${readback.server}${readback.readAt ? ` at ${utc(readback.readAt)}` : ''} by the read-back check; re-execute it to read again.`,
    '',
    '| Fact | On the server |',
    '| --- | --- |',
    ...factRows(readback.facts).map(([k, v]) => `| ${k} | ${cell(v)} |`),
    '',
    '### Files as deployed',
    '',
    ...(files.length
      ? files.flatMap((f) => [`\`${f.path}\` (compose project ${f.project}):`, '', fence(f.content), f.content, fence(f.content), ''])
      : ['No file was read back: no compose project of this stack runs on the server.', '']),
    ...readback.skipped.filter((s) => [...ours].some((p) => readback.facts.composeProjects.find((c) => c.name === p && s.includes(c.workingDir)))).map((s) => `- ${s.replace(/^skipped /, 'Not read back: ')}`),
  ].join('\n');
}

/** The quick start's short form: the system and Compose as read, and where the files as deployed are. */
export function serverSummary(readback: ReadBack | undefined): string {
  if (!readback) return `**${DOCUMENTATION.serverHeading}:** not read back yet (the read-back check has not run).`;
  const f = readback.facts;
  const parts = [f.os, f.dockerVersion && `Docker ${f.dockerVersion}`, f.compose && `Compose ${f.compose}`, f.cpus !== undefined && `${f.cpus} CPUs`, f.memoryGb !== undefined && `${f.memoryGb} GB memory`].filter(Boolean);
  return `**${DOCUMENTATION.serverHeading}:** ${parts.join(', ')} (read from ${readback.server}${readback.readAt ? ` at ${utc(readback.readAt)}` : ''}). The files as deployed are in the full documentation.`;
}

/** Configuration data: the server's facts as key-value pairs. */
export function serverKeyValues(readback: ReadBack | undefined): Record<string, unknown> {
  if (!readback) return {};
  const f = readback.facts;
  return {
    server_read_at: readback.readAt,
    ...(f.os ? { server_os: f.os } : {}),
    ...(f.dockerVersion ? { server_docker_version: f.dockerVersion } : {}),
    ...(f.compose ? { server_compose: f.compose } : {}),
    ...(f.cpus !== undefined ? { server_cpus: f.cpus } : {}),
    ...(f.memoryGb !== undefined ? { server_memory_gb: f.memoryGb } : {}),
    ...(f.diskTotalGb !== undefined ? { server_disk_gb: f.diskTotalGb, server_disk_free_gb: f.diskFreeGb } : {}),
    ...(f.sshd ? { server_sshd: f.sshd } : {}),
    server_firewall_active: f.firewallActive ?? null,
    ...(f.listening ? { server_listening_ports: [...new Set(f.listening.map((p) => `${p.port}/${p.protocol}`))] } : {}),
    server_tls_certificates: f.certificates.length,
    server_deployed_files: readback.files.map((x) => x.path),
  };
}

/** The text with the server section where the writer put the marker, else right after the results. */
export function withServer(text: string, section: string, results: string): string {
  if (text.includes(DOCUMENTATION.serverMarker)) return text.split(DOCUMENTATION.serverMarker).join(section);
  const at = text.indexOf(results);
  return at < 0 ? `${text.trimEnd()}\n\n${section}\n` : `${text.slice(0, at + results.length)}\n\n${section}${text.slice(at + results.length)}`;
}
