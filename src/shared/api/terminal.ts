import { Type, type Static } from 'typebox';
import { TERMINAL_ID_PATTERN } from '../constants/terminal';

/**
 * GET /api/terminal/commands (SSE): the commands the server runs for a project's steps, shown in the
 * terminal tab as they run. Each frame is `data: {json}` with one of the events below (not the chat event
 * shape). Ours, unlike the documents: the terminal only DISPLAYS them — the server has already run the
 * command, and typing it into the person's shell would run it a second time (a step's `exit 1` would even
 * log the shell out). The socket messages of the terminal itself are in events.ts.
 */
export const TerminalCommandEvent = Type.Object({
  command: Type.String(),
  simulate_typing: Type.Optional(Type.Boolean()),
  /** Milliseconds between typed characters when simulating typing; default 50. */
  typing_speed: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000 })),
  /** The step the command belongs to. */
  step_number: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type TerminalCommandEvent = Static<typeof TerminalCommandEvent>;

/** A chunk of the running step's output (redacted), in arrival order. */
export const TerminalOutputEvent = Type.Object({
  step_number: Type.Integer({ minimum: 1 }),
  output: Type.String(),
});
export type TerminalOutputEvent = Static<typeof TerminalOutputEvent>;

/** The step's command has ended: its status and, when failed, why. */
export const TerminalEndEvent = Type.Object({
  step_number: Type.Integer({ minimum: 1 }),
  status: Type.Union([Type.Literal('completed'), Type.Literal('failed')]),
  error_message: Type.Union([Type.String(), Type.Null()]),
});
export type TerminalEndEvent = Static<typeof TerminalEndEvent>;

/**
 * The project's releases changed: a deploy (or a roll back) whose every step completed was recorded from
 * the server, or a change failed its health gate and was recorded as rolled back. It comes seconds after
 * the last step's end (the release is read from the server), so a list of releases refreshes on this
 * frame, not on the step's end. The terminal shows nothing for it.
 */
export const TerminalReleaseEvent = Type.Object({
  release: Type.Object({
    number: Type.Integer({ minimum: 1 }),
    status: Type.Union([Type.Literal('live'), Type.Literal('rolled_back')]),
  }),
});
export type TerminalReleaseEvent = Static<typeof TerminalReleaseEvent>;

/** Any frame of GET /api/terminal/commands. */
export type TerminalStreamEvent = TerminalCommandEvent | TerminalOutputEvent | TerminalEndEvent | TerminalReleaseEvent;

/**
 * Query of the terminal socket, /api/sandboxes/{projectId}/ws?terminal=<id>: which of the person's shells
 * in the sandbox to attach (one per browser tab; `main` when absent). A new id past TERMINAL.maxSessions
 * shells is closed with code 4003 and the reason TERMINAL.tooManySessions.
 */
export const TerminalSocketQuery = Type.Object(
  { terminal: Type.Optional(Type.String({ pattern: TERMINAL_ID_PATTERN })) },
  { additionalProperties: false },
);
export type TerminalSocketQuery = Static<typeof TerminalSocketQuery>;
