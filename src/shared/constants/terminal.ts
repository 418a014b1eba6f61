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
} as const;
