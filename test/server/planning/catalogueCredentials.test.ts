import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import YAML from 'yaml';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { processesHolding } from '../sandbox/processTable';

/**
 * The catalogue's commands that hand a password to a program through a config on stdin or a 0600 file
 * (curl -K - for Elasticsearch, mongodump --config) deliver generated passwords exactly, run by dash (the
 * images' sh) with each awk the machine has (the images have mawk or gawk) and real curl against a real
 * HTTP server, and no process holds the password on its command line while curl waits for the answer.
 * mongodump itself is not installable here (no Debian package, no image on this machine): a stand-in
 * prints the file it is given, read with a YAML parser.
 */

/**
 * Any value a User Secret can hold (an environment variable: no NUL): quotes, backslashes, `$`, backquotes,
 * spaces, non-ASCII, line breaks (a trailing one too), carriage returns, tabs and other control characters.
 */
const password = fc
  .array(fc.oneof(fc.constantFrom('"', "'", '\\', '\\\\', '$', '$(id)', '`', ' ', '%s', '{', '}', ':', 'é', '🔑', '#', '\n', '\r\n', '\t', '\x01', '\x1b', '\x7f', '\\n'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 })), { minLength: 1, maxLength: 12 })
  .map((parts) => `pw-${parts.join('')}`)
  .filter((p) => !p.includes('\0'));

/** The machine's awks, each put first on PATH as `awk` by its own directory. */
const AWKS = ['mawk', 'gawk'].flatMap((name) => {
  const found = (process.env.PATH ?? '').split(':').map((d) => path.join(d, name)).find((p) => fs.existsSync(p));
  if (!found) return [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `da-${name}-`));
  fs.symlinkSync(found, path.join(dir, 'awk'));
  return [{ name, dir }];
});
const awk = fc.constantFrom(...AWKS);

interface Heard {
  authorization: string | undefined;
  body: string;
  /** Processes holding the password on their command line while curl waited for this answer. */
  holders: number;
}

function run(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('dash', ['-c', script], { env: { PATH: process.env.PATH!, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the catalogue's commands hand passwords over off the command line", () => {
  let server: http.Server;
  let url = '';
  let heard: Heard[] = [];
  let secret = '';

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        // curl is still running, waiting for this answer.
        heard.push({ authorization: req.headers.authorization, body, holders: processesHolding(Buffer.from(secret, 'utf8'))// In the container the variable is in every process's environment anyway: the command line is what ps shows to all.
          .filter((s) => s.file === 'cmdline').length });
        res.setHeader('content-type', 'application/json');
        res.end('{"status":"green"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const a of AWKS) fs.rmSync(a.dir, { recursive: true, force: true });
  });

  it('has an awk to run them with, as the images do', () => {
    expect(AWKS.map((a) => a.name)).toContain('mawk');
  });

  it("Elasticsearch's readiness check, kibana_system password and healthcheck send the passwords as curl config on stdin", async () => {
    const elk = PRODUCTS.elk!;
    const healthcheck = elk.services.find((s) => s.name === 'elasticsearch')!.healthcheck!.test[1]!.replace(/\$\$/g, '$');
    const here = (command: string): string => command.replaceAll('http://127.0.0.1:9200', url);
    await fc.assert(
      fc.asyncProperty(password, password, awk, async (elastic, kibana, { dir }) => {
        const basic = `Basic ${Buffer.from(`elastic:${elastic}`, 'utf8').toString('base64')}`;
        for (const [command, watched] of [[elk.bootstrap!.ready, elastic], [healthcheck, elastic], [elk.bootstrap!.commands[0]!, kibana]] as const) {
          heard = [];
          secret = watched;
          const result = await run(here(command), { PATH: `${dir}:${process.env.PATH}`, ELASTIC_PASSWORD: elastic, KIBANA_SYSTEM_PASSWORD: kibana });
          expect(result).toMatchObject({ code: 0 });
          expect(heard).toEqual([expect.objectContaining({ authorization: basic, holders: 0 })]);
          if (watched === kibana) expect(JSON.parse(heard[0]!.body)).toEqual({ password: kibana });
        }
      }),
      { numRuns: 30 },
    );
  });

  it("MongoDB's dump reads the password from a --config file of mode 0600 that is gone afterwards", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-mongodump-'));
    try {
      // mongodump stands in as a script: it prints the config file it is given, its mode and its path.
      fs.writeFileSync(path.join(dir, 'mongodump'), '#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ "$1" = --config ]; then cat -- "$2"; stat -c %a -- "$2" >&2; printf "%s\\n" "$2" >&2; fi; shift; done\n', { mode: 0o755 });
      const dump = PRODUCTS.mongo!.services[0]!.backup!.dump;
      await fc.assert(
        fc.asyncProperty(password, awk, async (root, withAwk) => {
          const result = await run(dump, { PATH: `${dir}:${withAwk.dir}:${process.env.PATH}`, MONGO_INITDB_ROOT_PASSWORD: root });
          expect(result.code).toBe(0);
          expect(YAML.parse(result.stdout)).toEqual({ password: root });
          const [mode, file] = result.stderr.trim().split('\n');
          expect(mode).toBe('600');
          expect(fs.existsSync(file!)).toBe(false);
        }),
        { numRuns: 40 },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
