import type { WebSocket } from 'ws';
import { Compile } from 'typebox/compile';
import { TerminalClientMessage, type TerminalOutputMessage } from '../../../shared/events';
import type { SandboxDriver, SandboxPty, SandboxRef } from '../../sandbox/driver';
import { createRedactor, type Redactor } from '../../sandbox/redactor';
import { TERMINAL } from '../../../shared/constants/terminal';

const clientMessage = Compile(TerminalClientMessage);

export interface TerminalOptions {
  /** How long a shell whose socket dropped waits for a reconnect. */
  graceMs: number;
  /** Shells one person may keep in one sandbox (attached or waiting for a reconnect); TERMINAL.maxSessions by default. */
  maxPerUser?: number;
  /** Pause the pty when the socket has this many bytes queued… */
  highWatermark?: number;
  /** …and resume it once fewer than this remain. */
  lowWatermark?: number;
  /**
   * A project's User Secrets: the shell gets them as environment variables (as the execution steps do)
   * and their values are blanked out of its output.
   */
  secretsOf?: (projectId: number) => Promise<Record<string, string>>;
  /** The values among them that are secrets, blanked out of the output (a host or a port is not); all when absent. */
  hiddenOf?: (projectId: number) => Promise<Record<string, string>>;
}

/** Bytes queued on a terminal socket above which its pty is paused (unless the options say otherwise). */
export const TERMINAL_HIGH_WATERMARK = 1024 * 1024;

/** Close codes of the terminal socket. */
export const TERMINAL_CLOSE = { replaced: 4000, exited: 4001, badMessage: 4002, tooMany: 4003 } as const;

/** The terminal a socket names when it names none (clients from before several terminals). */
export const DEFAULT_TERMINAL_ID = 'main';

interface Session {
  key: string;
  pty: SandboxPty;
  redactor: Redactor;
  socket: WebSocket | null;
  graceTimer: NodeJS.Timeout | null;
  flushTimer: NodeJS.Timeout | null;
  /** When the last output frame went out: output arriving soon after it is a flood, and is coalesced. */
  lastFrameAt: number;
  /** Why the pty is paused: the socket's queue, the client's own flow control, or no socket at all. */
  backpressure: boolean;
  clientPaused: boolean;
  paused: boolean;
  /** Output read from the pty this turn, sent as one frame. */
  outBuffer: string;
  outScheduled: boolean;
}

/** Largest output frame; a busy pty is flushed at this size without waiting. */
const FRAME_MAX = 64 * 1024;
/** Output within this long of the previous frame is part of a flood… */
const FLOOD_GAP_MS = 10;
/** …and waits this long for more, so a flood goes out in frames of up to FRAME_MAX, not one per 4 KB read. */
const COALESCE_MS = 2;

/**
 * Terminal shells, one per project, user and terminal id (a browser tab's), at most `maxPerUser` per
 * person and sandbox, each kept across socket drops for a grace period so that a
 * reconnecting browser finds the same shell. Output reaches the socket as `{type:'output',data}`
 * frames, redacted; when the socket's queue passes the high watermark the pty is paused (the shell then
 * blocks on its own writes), so `yes` or a 100 MB `cat` costs bounded memory. Input is written straight
 * to the pty, so Ctrl-C (\x03) reaches the shell's line discipline at once whatever output is queued.
 */
export function createTerminalSessions(driver: SandboxDriver, options: TerminalOptions) {
  const high = options.highWatermark ?? TERMINAL_HIGH_WATERMARK;
  const low = options.lowWatermark ?? 256 * 1024;
  const maxPerUser = options.maxPerUser ?? TERMINAL.maxSessions;
  const sessions = new Map<string, Session>();
  /** Shells being started, so that a second socket for the same terminal joins it and the bound counts it. */
  const starting = new Map<string, Promise<Session>>();
  /** Shells of one person in one sandbox, alive or starting. */
  const countOf = (owner: string): number => [...sessions.keys(), ...starting.keys()].filter((key) => key.startsWith(owner)).length;

  const applyPause = (s: Session): void => {
    const shouldPause = s.backpressure || s.clientPaused || s.socket === null;
    if (shouldPause === s.paused) return;
    s.paused = shouldPause;
    if (shouldPause) s.pty.pause();
    else s.pty.resume();
  };

  const send = (s: Session, data: string): void => {
    const socket = s.socket;
    if (!data || !socket || socket.readyState !== socket.OPEN) return;
    const frame: TerminalOutputMessage = { type: 'output', data };
    socket.send(JSON.stringify(frame), () => {
      if (s.backpressure && s.socket === socket && socket.bufferedAmount < low) {
        s.backpressure = false;
        applyPause(s);
      }
    });
    if (socket.bufferedAmount > high && !s.backpressure) {
      s.backpressure = true;
      applyPause(s);
    }
  };

  const flushOut = (s: Session): void => {
    s.outScheduled = false;
    const data = s.outBuffer;
    if (!data) return;
    s.outBuffer = '';
    s.lastFrameAt = performance.now();
    send(s, data);
  };

  /**
   * The pty hands over about 4 KB per read, one read per turn of the event loop. Quiet output (a
   * keystroke's echo, a prompt) goes out at the end of the turn; output that follows the previous frame
   * within FLOOD_GAP_MS waits up to COALESCE_MS for more, so a `cat` of 100 MB costs a sixteenth of the
   * frames (and of their per-frame work on both ends) for at most 2 ms of added latency.
   */
  const scheduleFlush = (s: Session): void => {
    if (s.outBuffer.length >= FRAME_MAX) {
      flushOut(s);
      return;
    }
    if (s.outScheduled) return;
    s.outScheduled = true;
    if (performance.now() - s.lastFrameAt < FLOOD_GAP_MS) setTimeout(flushOut, COALESCE_MS, s);
    else setImmediate(flushOut, s);
  };

  const end = (s: Session): void => {
    if (sessions.get(s.key) === s) sessions.delete(s.key);
    if (s.graceTimer) clearTimeout(s.graceTimer);
    if (s.flushTimer) clearTimeout(s.flushTimer);
    s.pty.kill();
  };

  const create = async (key: string, ref: SandboxRef): Promise<Session> => {
    const secrets = (await options.secretsOf?.(ref.projectId)) ?? {};
    const pty = driver.shell(ref, { cols: 80, rows: 24, env: secrets });
    const s: Session = {
      key,
      pty,
      redactor: createRedactor(Object.values((await options.hiddenOf?.(ref.projectId)) ?? secrets)),
      socket: null,
      graceTimer: null,
      flushTimer: null,
      lastFrameAt: 0,
      backpressure: false,
      clientPaused: false,
      paused: false,
      outBuffer: '',
      outScheduled: false,
    };
    pty.onData((data) => {
      s.outBuffer += s.redactor.push(data);
      scheduleFlush(s);
      // A tail held back as a possible secret prefix goes out once the shell is quiet.
      if (s.redactor.pending && !s.flushTimer) {
        s.flushTimer = setTimeout(() => {
          s.flushTimer = null;
          s.outBuffer += s.redactor.flush();
          flushOut(s);
        }, 30);
      }
    });
    pty.onExit(() => {
      if (sessions.get(key) === s) sessions.delete(key);
      if (s.graceTimer) clearTimeout(s.graceTimer);
      s.outBuffer += s.redactor.flush();
      flushOut(s);
      s.socket?.close(TERMINAL_CLOSE.exited, 'Shell exited');
    });
    sessions.set(key, s);
    return s;
  };

  return {
    /**
     * Attaches a socket to the user's shell `terminalId` in the project's sandbox, starting one if there
     * is none; past `maxPerUser` shells the socket is closed with `tooMany` and the reason says why. A
     * second socket for the same shell takes it over and the first is closed; other terminals go on.
     */
    async attach(ref: SandboxRef, userId: number, socket: WebSocket, terminalId: string = DEFAULT_TERMINAL_ID): Promise<void> {
      const owner = `${ref.projectId}:${userId}:`;
      const key = `${owner}${terminalId}`;
      // Listen at once: frames sent while the shell starts must not be lost.
      const early: string[] = [];
      let session: Session | null = null;
      const onMessage = (raw: Buffer | string): void => {
        const text = raw.toString();
        if (!session) {
          early.push(text);
          return;
        }
        let message: unknown;
        try {
          message = JSON.parse(text);
        } catch {
          message = undefined;
        }
        if (!clientMessage.Check(message)) {
          socket.close(TERMINAL_CLOSE.badMessage, 'Invalid terminal message');
          return;
        }
        if (message.type === 'input') session.pty.write(message.input);
        else if (message.type === 'resize') session.pty.resize(message.cols, message.rows);
        else {
          session.clientPaused = message.type === 'pause';
          applyPause(session);
        }
      };
      socket.on('message', onMessage);

      let existing = sessions.get(key);
      if (!existing) {
        let pending = starting.get(key);
        if (!pending) {
          if (countOf(owner) >= maxPerUser) {
            socket.close(TERMINAL_CLOSE.tooMany, TERMINAL.tooManySessions);
            return;
          }
          pending = create(key, ref).finally(() => starting.delete(key));
          starting.set(key, pending);
        }
        existing = await pending;
      }
      session = existing;
      if (socket.readyState !== socket.OPEN) {
        if (!session.socket) scheduleEnd(session);
        return;
      }
      if (session.graceTimer) {
        clearTimeout(session.graceTimer);
        session.graceTimer = null;
      }
      const previous = session.socket;
      session.socket = socket;
      session.backpressure = false;
      session.clientPaused = false;
      if (previous && previous !== socket) previous.close(TERMINAL_CLOSE.replaced, 'Attached elsewhere');
      applyPause(session);
      const attached = session;
      socket.once('close', () => {
        if (attached.socket !== socket) return;
        attached.socket = null;
        applyPause(attached);
        scheduleEnd(attached);
      });
      for (const text of early.splice(0)) onMessage(text);
    },

    /** Shells alive (attached or waiting for a reconnect). */
    get size(): number {
      return sessions.size;
    },

    /** Shells alive or starting in one project's sandbox, whoever opened them. */
    openIn(projectId: number): number {
      return [...sessions.keys(), ...starting.keys()].filter((key) => key.startsWith(`${projectId}:`)).length;
    },

    close(): void {
      for (const s of [...sessions.values()]) end(s);
    },
  };

  function scheduleEnd(s: Session): void {
    if (s.graceTimer) clearTimeout(s.graceTimer);
    s.graceTimer = setTimeout(() => end(s), options.graceMs);
  }
}

export type TerminalSessions = ReturnType<typeof createTerminalSessions>;
