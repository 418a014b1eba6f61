import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions, FastifyChildLoggerFactory } from 'fastify/types/logger';
import fp from 'fastify-plugin';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** Writes a line's arguments through one of the logger's level methods. */
const write = (logger: FastifyBaseLogger, level: Level, args: unknown[]): void => (logger[level] as (...line: unknown[]) => void).apply(logger, args);

/**
 * A request's logger that becomes pino's child (its bindings serialised, about 1 µs) on its first line:
 * most requests — every hot poll — write none.
 */
class RequestLogger implements FastifyBaseLogger {
  private child_: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.child_ ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.child_?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    write(this.logger, 'fatal', args);
  }
  error(...args: unknown[]): void {
    write(this.logger, 'error', args);
  }
  warn(...args: unknown[]): void {
    write(this.logger, 'warn', args);
  }
  info(...args: unknown[]): void {
    write(this.logger, 'info', args);
  }
  debug(...args: unknown[]): void {
    write(this.logger, 'debug', args);
  }
  trace(...args: unknown[]): void {
    write(this.logger, 'trace', args);
  }
  silent(...args: unknown[]): void {
    write(this.logger, 'silent', args);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger is made when it first writes (see RequestLogger). */
export const lazyRequestLogger: FastifyChildLoggerFactory = (logger, bindings, options) => new RequestLogger(logger, bindings, options);

/** A request slower than this is logged at warn whatever its status. */
export const SLOW_REQUEST_MS = 1_000;

/**
 * The URL as logged: the path and the names of the query's parameters, never their values. A chat
 * message travels in `?message=` (the agents' event streams are GETs), and what a person types there —
 * a secret pasted into a command too — must not reach the log.
 */
export function urlForLog(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = [...new URLSearchParams(url.slice(at + 1)).keys()];
  return `${url.slice(0, at)}?${names.map((n) => `${encodeURIComponent(n)}=…`).join('&')}`;
}

/** Levels at which 'request completed' is written. */
const DEBUG_LEVELS = new Set(['debug', 'trace']);

/** Whether a logger at `level` writes a line for every request, a 304 included. */
export const logsEveryRequest = (level: string): boolean => DEBUG_LEVELS.has(level);

/** The request in the shape Fastify's `req` serializer reads, with the URL as logged. */
const requestForLog = (request: FastifyRequest) => ({ method: request.method, url: urlForLog(request.url), headers: request.headers, host: request.host, ip: request.ip, socket: request.socket });

/**
 * One line per request only when it says something: a 5xx at error, a slow request at warn, a 4xx at
 * info, everything else at debug. Fastify's own two lines per request (about 40 µs, most of a hot
 * poll's cost) are turned off in `buildApp`; LOG_LEVEL=debug shows every request again.
 */
export const requestLogPlugin = fp(
  async (app) => {
    app.addHook('onResponse', (request, reply, done) => {
      const status = reply.statusCode;
      const ms = reply.elapsedTime;
      const line = { res: reply, responseTime: ms };
      if (status >= 500) request.log.error({ req: requestForLog(request), ...line }, 'request failed');
      else if (ms >= SLOW_REQUEST_MS) request.log.warn({ req: requestForLog(request), ...line }, 'slow request');
      else if (status >= 400) request.log.info({ req: requestForLog(request), ...line }, 'request refused');
      // The request is described only when the line is written (a hot poll's 2xx/304 at the default level is not).
      else if (logsEveryRequest(request.log.level)) request.log.debug({ req: requestForLog(request), ...line }, 'request completed');
      done();
    });
  },
  { name: 'request-log' },
);
