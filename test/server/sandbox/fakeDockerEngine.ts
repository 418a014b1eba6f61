import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { listenOnLoopback, type Listening } from './fakeServer';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'docker');
export const fixture = <T = Record<string, unknown>>(name: string): T =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as T;

/** Id of the one-shot container that hands a new volume to uid 1000. */
export const HELPER_ID = '9d2c41be7f0a5e6d8c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d';

export interface RecordedRequest {
  method: string;
  /** Path without the `/v1.xx` prefix. */
  path: string;
  query: URLSearchParams;
  body: unknown;
  raw: Buffer;
}

/** How the fake answers one exec: frames of the multiplexed stream, then the exit code. */
export interface ExecScript {
  frames?: Array<[stream: 'stdout' | 'stderr', data: string | Buffer]>;
  exitCode?: number;
  /** Keep the stream open until a `kill` exec names this exec's pid file. */
  hang?: boolean;
}

/** One frame of Docker's multiplexed stream: type, three zero bytes, big-endian length, payload. */
export function frame(stream: 'stdout' | 'stderr', data: string | Buffer): Buffer {
  const payload = Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8');
  const header = Buffer.alloc(8);
  header[0] = stream === 'stdout' ? 1 : 2;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

/**
 * A Docker Engine API v1.45 replay: answers the calls the docker driver makes with the recorded JSON
 * fixtures, keeps container/volume existence as state and records every request for assertions.
 */
export class FakeDockerEngine {
  readonly requests: RecordedRequest[] = [];
  container: 'absent' | 'created' | 'running' = 'absent';
  volume = false;
  /** Tar served by GET /archive (per requested path, or the default). */
  archives = new Map<string, Buffer>();
  /** Decides each non-tty exec's answer from its Cmd. */
  onExec: (cmd: string[]) => ExecScript = () => ({ exitCode: 0 });
  private execs = new Map<string, { cmd: string[]; tty: boolean; exitCode: number; running: boolean }>();
  private hanging = new Map<string, () => void>();
  private server = http.createServer((req, res) => void this.handle(req, res));
  private listening: Listening | null = null;
  private nextExec = 0;
  port = 0;

  async listen(): Promise<void> {
    this.listening = await listenOnLoopback(this.server, (req, socket, head) => this.upgrade(req, socket, head));
    this.port = this.listening.port;
  }

  async close(): Promise<void> {
    await this.listening?.close();
  }

  calls(method: string, pattern: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && pattern.test(r.path));
  }

  execCommands(): string[][] {
    return this.calls('POST', /^\/containers\/[^/]+\/exec$/).map((r) => (r.body as { Cmd: string[] }).Cmd);
  }

  private async readBody(req: http.IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  private record(req: http.IncomingMessage, raw: Buffer): RecordedRequest {
    const url = new URL(req.url!, 'http://docker');
    const type = req.headers['content-type'] ?? '';
    const body = type.includes('json') && raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
    const entry = { method: req.method!, path: url.pathname.replace(/^\/v1\.\d+/, ''), query: url.searchParams, body, raw };
    this.requests.push(entry);
    return entry;
  }

  private json(res: http.ServerResponse, status: number, body?: unknown): void {
    if (body === undefined) {
      res.writeHead(status).end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Api-Version': '1.45', 'Content-Length': Buffer.byteLength(text) }).end(text);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const r = this.record(req, await this.readBody(req));
    const p = r.path;
    let m: RegExpExecArray | null;
    if (r.method === 'GET' && /^\/images\/.+\/json$/.test(p)) return this.json(res, 200, fixture('image-inspect'));
    if (r.method === 'GET' && /^\/volumes\/[^/]+$/.test(p)) {
      return this.volume ? this.json(res, 200, fixture('volume-create')) : this.json(res, 404, fixture('error-no-such-volume'));
    }
    if (r.method === 'POST' && p === '/volumes/create') {
      this.volume = true;
      return this.json(res, 201, fixture('volume-create'));
    }
    if (r.method === 'DELETE' && /^\/volumes\/[^/]+$/.test(p)) {
      this.volume = false;
      return this.json(res, 204);
    }
    if (r.method === 'POST' && p === '/containers/create') {
      const created = fixture<{ Id: string; Warnings: string[] }>('container-create');
      if (/-volume$/.test(r.query.get('name') ?? '')) return this.json(res, 201, { ...created, Id: HELPER_ID });
      this.container = 'created';
      return this.json(res, 201, created);
    }
    if ((m = /^\/containers\/([^/]+)\/(json|start|wait|exec|archive)$/.exec(p))) {
      const helper = m[1] === HELPER_ID;
      if (!helper && this.container === 'absent') return this.json(res, 404, fixture('error-no-such-container'));
      if (m[2] === 'json') {
        const info = fixture<{ State: Record<string, unknown> }>('container-inspect');
        if (this.container === 'created') info.State = { ...info.State, Status: 'created', Running: false, Pid: 0 };
        return this.json(res, 200, info);
      }
      if (m[2] === 'start') {
        if (!helper) this.container = 'running';
        return this.json(res, 204);
      }
      if (m[2] === 'wait') return this.json(res, 200, fixture('container-wait'));
      if (m[2] === 'exec') {
        const id = `${fixture<{ Id: string }>('exec-create').Id.slice(0, 56)}${String(this.nextExec++).padStart(8, '0')}`;
        const body = r.body as { Cmd: string[]; Tty: boolean };
        this.execs.set(id, { cmd: body.Cmd, tty: body.Tty, exitCode: 0, running: false });
        return this.json(res, 201, { Id: id });
      }
      if (r.method === 'GET') {
        const tar = this.archives.get(r.query.get('path')!) ?? this.archives.get('*');
        if (!tar) return this.json(res, 404, { message: `Could not find the file ${r.query.get('path')} in container` });
        const stat = Buffer.from(JSON.stringify({ name: '.', size: 4096, mode: 2147484141, mtime: '2025-01-15T09:13:00Z', linkTarget: '' })).toString('base64');
        res.writeHead(200, { 'Content-Type': 'application/x-tar', 'X-Docker-Container-Path-Stat': stat }).end(tar);
        return;
      }
      return this.json(res, 200); // PUT archive
    }
    if (r.method === 'DELETE' && /^\/containers\/[^/]+$/.test(p)) {
      const helper = p.endsWith(HELPER_ID);
      if (this.container === 'absent' && !helper) return this.json(res, 404, fixture('error-no-such-container'));
      if (!helper) this.container = 'absent';
      return this.json(res, 204);
    }
    if ((m = /^\/exec\/([^/]+)\/(start|json|resize)$/.exec(p))) {
      const exec = this.execs.get(m[1]!);
      if (!exec) return this.json(res, 404, { message: `No such exec instance: ${m[1]}` });
      if (m[2] === 'json') return this.json(res, 200, { ...fixture<Record<string, unknown>>('exec-inspect'), ID: m[1], ExitCode: exec.exitCode, Running: exec.running });
      if (m[2] === 'resize') return this.json(res, 201);
      return this.startExec(m[1]!, exec, res);
    }
    this.json(res, 404, { message: `page not found: ${r.method} ${p}` });
  }

  private startExec(id: string, exec: { cmd: string[]; exitCode: number; running: boolean }, res: http.ServerResponse): void {
    const kill = /^kill$/.test(exec.cmd[3] ?? '') ? exec.cmd[4] : undefined;
    if (kill) this.hanging.get(kill)?.();
    const script = kill ? { exitCode: 0 } : this.onExec(exec.cmd);
    res.writeHead(200, { 'Content-Type': 'application/vnd.docker.multiplexed-stream' });
    for (const [stream, data] of script.frames ?? []) res.write(frame(stream, data));
    exec.exitCode = script.exitCode ?? 0;
    if (!script.hang) {
      res.end();
      return;
    }
    exec.running = true;
    const pidFile = exec.cmd[0] === 'setsid' ? exec.cmd[6]! : '';
    this.hanging.set(pidFile, () => {
      exec.running = false;
      exec.exitCode = 137;
      res.end();
    });
  }

  /** A tty exec: Docker answers 101 and the connection becomes the raw terminal; this one echoes. */
  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url!, 'http://docker');
    const id = /^(?:\/v1\.\d+)?\/exec\/([^/]+)\/start$/.exec(url.pathname)?.[1];
    const exec = id ? this.execs.get(id) : undefined;
    let skip = Number(req.headers['content-length'] ?? 0);
    const bodyParts: Buffer[] = [];
    socket.write('HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n');
    if (!exec) return void socket.end();
    exec.running = true;
    const onData = (chunk: Buffer): void => {
      if (skip > 0) {
        bodyParts.push(chunk.subarray(0, skip));
        const taken = Math.min(skip, chunk.length);
        skip -= taken;
        if (skip === 0) {
          const raw = Buffer.concat(bodyParts);
          this.requests.push({ method: 'POST', path: `/exec/${id}/start`, query: url.searchParams, body: JSON.parse(raw.toString('utf8')), raw });
        }
        chunk = chunk.subarray(taken);
      }
      if (!chunk.length) return;
      const text = chunk.toString('utf8');
      socket.write(text.replace(/\r/g, '\r\n'));
      if (/exit\r/.test(text)) {
        exec.running = false;
        exec.exitCode = 0;
        socket.end();
      }
    };
    if (head.length) onData(head);
    socket.on('data', onData);
    socket.on('close', () => {
      if (exec.running) {
        exec.running = false;
        exec.exitCode = 129;
      }
    });
  }
}
