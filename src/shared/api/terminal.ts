import { Type, type Static } from 'typebox';

/**
 * GET /api/terminal/commands (SSE): commands an agent runs, to be typed into the terminal tab and sent to
 * the shell as `{type:'input'}`. Each frame is `data: {json}` with a `TerminalCommandEvent` (not the chat
 * event shape). The socket messages of the terminal itself are in events.ts.
 */
export const TerminalCommandEvent = Type.Object({
  command: Type.String(),
  simulate_typing: Type.Optional(Type.Boolean()),
  /** Milliseconds between typed characters when simulating typing; default 50. */
  typing_speed: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000 })),
});
export type TerminalCommandEvent = Static<typeof TerminalCommandEvent>;
