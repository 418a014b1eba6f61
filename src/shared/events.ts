import { Type, type Static } from 'typebox';
import { TERMINAL } from './constants/terminal';

/**
 * What travels on streams and sockets rather than as REST answers.
 *
 * Agent streams (`text/event-stream`, read with fetch): each frame is one line `data: {json}` holding a
 * `StreamEvent`, e.g.
 *   data: {"event":"on_chat_model_stream","thread_id":"t-1","chunk":{"content":"Hel"}}
 *   data: {"event":"on_chat_model_end","thread_id":"t-1"}
 * One `on_chat_model_end` ends an agent turn and the server then closes the stream. A failure is sent as
 * an `error` event whose `data` is `{ detail }`, and the stream closes.
 */

export const STREAM_EVENTS = {
  start: 'on_chat_model_start',
  stream: 'on_chat_model_stream',
  end: 'on_chat_model_end',
  error: 'error',
} as const;
export type KnownStreamEventName = (typeof STREAM_EVENTS)[keyof typeof STREAM_EVENTS];

/** The prefix of an SSE data line. */
export const SSE_DATA_PREFIX = 'data:';

/**
 * One agent stream event. `event` is one of `STREAM_EVENTS` or another LangGraph event name, which
 * clients ignore. `chunk.content` is present on `on_chat_model_stream`.
 */
export const StreamEvent = Type.Object({
  event: Type.String(),
  thread_id: Type.String(),
  chunk: Type.Optional(Type.Object({ content: Type.String() })),
  data: Type.Optional(Type.Unknown()),
  model: Type.Optional(Type.String()),
});
export type StreamEvent = Static<typeof StreamEvent>;

/** The `data` of an `error` stream event. */
export const StreamErrorData = Type.Object({ detail: Type.String() });
export type StreamErrorData = Static<typeof StreamErrorData>;

/** True for the event that ends an agent turn. */
export const isStreamEnd = (e: Pick<StreamEvent, 'event'>): boolean => e.event === STREAM_EVENTS.end;

// ---------------------------------------------------------------------------------------------------
// Terminal socket: /api/sandboxes/{projectId}/ws, JSON text frames.
// ---------------------------------------------------------------------------------------------------

/** Keystrokes or a typed command for the shell. */
export const TerminalInputMessage = Type.Object(
  { type: Type.Literal('input'), input: Type.String({ maxLength: TERMINAL.maxInputLength }) },
  { additionalProperties: false },
);
export type TerminalInputMessage = Static<typeof TerminalInputMessage>;

/** The terminal's size, sent on open and on every window resize. */
export const TerminalResizeMessage = Type.Object(
  {
    type: Type.Literal('resize'),
    rows: Type.Integer({ minimum: TERMINAL.minRows, maximum: TERMINAL.maxRows }),
    cols: Type.Integer({ minimum: TERMINAL.minCols, maximum: TERMINAL.maxCols }),
  },
  { additionalProperties: false },
);
export type TerminalResizeMessage = Static<typeof TerminalResizeMessage>;

/**
 * Flow control (ttyd style): the client sends `pause` when xterm's pending writes pass a high watermark
 * and `resume` when they drain below a low one; the server stops reading the pty meanwhile.
 */
export const TerminalFlowMessage = Type.Object(
  { type: Type.Enum(['pause', 'resume']) },
  { additionalProperties: false },
);
export type TerminalFlowMessage = Static<typeof TerminalFlowMessage>;

/**
 * Client → server on the terminal socket; the server validates every frame against this with TypeBox's
 * `Compile` (not Fastify's ajv, whose `removeAdditional` strips fields while trying the first union branch).
 */
export const TerminalClientMessage = Type.Union([TerminalInputMessage, TerminalResizeMessage, TerminalFlowMessage]);
export type TerminalClientMessage = Static<typeof TerminalClientMessage>;

/** Server → client on the terminal socket: shell output. */
export const TerminalOutputMessage = Type.Object({ type: Type.Literal('output'), data: Type.String() });
export type TerminalOutputMessage = Static<typeof TerminalOutputMessage>;

export const TerminalServerMessage = TerminalOutputMessage;
export type TerminalServerMessage = TerminalOutputMessage;

// ---------------------------------------------------------------------------------------------------
// DevOps Helper approval socket: /api/devops-helper/ws/approval/{projectId}, JSON text frames.
// ---------------------------------------------------------------------------------------------------

/** Client → server: keep-alive, sent on open and every 30 s. */
export const ApprovalPingMessage = Type.Object({ type: Type.Literal('ping') }, { additionalProperties: false });
export type ApprovalPingMessage = Static<typeof ApprovalPingMessage>;

export const ApprovalClientMessage = ApprovalPingMessage;
export type ApprovalClientMessage = ApprovalPingMessage;

/**
 * Server → client: a command waiting for the user; decide it with POST /api/devops-helper/approval.
 * `dangerous_reason` says why the command deserves a second look (destructive, prints secrets, …).
 */
/**
 * Where an approved command runs: in the project sandbox, or on a server over SSH from it (`name` as the
 * project's `ssh-keys/config` calls it, `address` as user@host:port).
 */
export const RunsOn = Type.Union([
  Type.Object({ kind: Type.Literal('sandbox') }),
  Type.Object({ kind: Type.Literal('server'), name: Type.String(), address: Type.String() }),
]);
export type RunsOn = Static<typeof RunsOn>;

export const ApprovalRequestMessage = Type.Object({
  type: Type.Literal('approval_request'),
  id: Type.String(),
  command: Type.String(),
  dangerous_reason: Type.Optional(Type.String()),
  runs_on: Type.Optional(RunsOn),
});
export type ApprovalRequestMessage = Static<typeof ApprovalRequestMessage>;

/** Server → client: the answer to a ping. */
export const ApprovalPongMessage = Type.Object({ type: Type.Literal('pong') });
export type ApprovalPongMessage = Static<typeof ApprovalPongMessage>;

export const ApprovalServerMessage = Type.Union([ApprovalRequestMessage, ApprovalPongMessage]);
export type ApprovalServerMessage = Static<typeof ApprovalServerMessage>;

// ---------------------------------------------------------------------------------------------------
// DevOps Helper stream: POST /api/devops-helper/chat answers text/event-stream with named SSE events.
//   event: id       data: {"thread_id":"t-1"}                          first, once
//   event: message  data: {"event":"on_chat_model_stream",...}         a StreamEvent; chunk.content accumulates
//   event: error    data: {"detail":"..."}                             shown as 'Server error: {detail}'; then closes
//   (no event line) data: {...StreamEvent}                             the default: handled like `message`
// A client's SSE parser yields `{ event, data }` with `event` = 'data' for a frame without an event line.
// ---------------------------------------------------------------------------------------------------

export const DEVOPS_HELPER_STREAM_EVENTS = {
  id: 'id',
  message: 'message',
  error: 'error',
  /** The name a parser gives a frame without an `event:` line. */
  default: 'data',
} as const;

export const DevopsHelperIdFrame = Type.Object({
  event: Type.Literal('id'),
  data: Type.Object({ thread_id: Type.String() }),
});
export type DevopsHelperIdFrame = Static<typeof DevopsHelperIdFrame>;

export const DevopsHelperMessageFrame = Type.Object({ event: Type.Literal('message'), data: StreamEvent });
export type DevopsHelperMessageFrame = Static<typeof DevopsHelperMessageFrame>;

export const DevopsHelperErrorFrame = Type.Object({ event: Type.Literal('error'), data: StreamErrorData });
export type DevopsHelperErrorFrame = Static<typeof DevopsHelperErrorFrame>;

export const DevopsHelperDataFrame = Type.Object({ event: Type.Literal('data'), data: StreamEvent });
export type DevopsHelperDataFrame = Static<typeof DevopsHelperDataFrame>;

/** One parsed DevOps Helper stream frame. */
export const DevopsHelperStreamFrame = Type.Union([
  DevopsHelperIdFrame,
  DevopsHelperMessageFrame,
  DevopsHelperErrorFrame,
  DevopsHelperDataFrame,
]);
export type DevopsHelperStreamFrame = Static<typeof DevopsHelperStreamFrame>;
