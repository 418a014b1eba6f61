/** The terminal tab and its socket (part 2 sections 2, 3, 4, 8, 9). */

export const TERMINAL = {
  /** The execution chat panel has exactly these tabs. */
  tabs: ['Chat', 'Terminal'],
  /** Default `typing_speed` of a simulated command: milliseconds between typed characters. */
  defaultTypingSpeed: 50,
  minCols: 2,
  minRows: 1,
  maxCols: 1_000,
  maxRows: 1_000,
  /** Largest `input` a client may send in one socket message, in characters. */
  maxInputLength: 65_536,
  connectedBanner: 'Connected to sandbox terminal',
  connectionClosed: 'Connection closed',
  connectionError: 'Connection error. Please try again.',
  commandError: '❌ Error executing command',
  /** Ours: the label of a command the server runs, shown (never typed) in the terminal. */
  agentPrompt: 'agent',
  /** Ours: shells one person may keep in one sandbox (one per browser tab), each with its own pty. */
  maxSessions: 4,
  /** Ours: why a terminal past `maxSessions` closed (a WebSocket close reason: at most 123 bytes). */
  tooManySessions: 'Too many terminals: at most 4 per sandbox. Close another terminal first.',
  /** Ours: the control shown when a terminal's socket dropped. */
  reconnect: 'Reconnect',
} as const;

/** Ours: the `?terminal=` id of a socket, naming one of a person's shells in a sandbox (one per browser tab). */
export const TERMINAL_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
