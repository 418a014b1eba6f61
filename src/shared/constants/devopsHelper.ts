/** The DevOps Helper chat, its warning dialog and its approval socket (part 2 sections 2, 4, 7, 8, 9). */

export const DEVOPS_HELPER = {
  title: 'DevOps Helper',
  /** The approval socket sends a ping this often, in ms. */
  approvalPingMs: 30_000,
  /** Reconnect delay after an unclean close of the approval socket, in ms. */
  approvalReconnectMs: 5_000,
  /** Local storage flag of the accepted warning (cleared on page unload). */
  acceptanceStorageKey: 'devops_helper_warning_accepted',
  approve: 'Approve',
  deny: 'Deny',
  chatPlaceholder: 'Ask the DevOps Helper, e.g. "run `docker ps`". Enter sends, Shift+Enter adds a line.',
  intro: 'Ask about your sandbox or server, or ask the helper to run a command. Every command waits for your approval.',
  backToHome: 'Back to Project Home',
} as const;

/** The approval card of a command the helper wants to run. */
export const DEVOPS_HELPER_APPROVAL = {
  title: 'Approval required',
  dangerous: (reason: string): string => `Caution: ${reason}`,
  /** Where the command runs, as the server says. */
  runsInSandbox: 'Runs in the project sandbox',
  runsOnServer: (name: string, address: string): string => `Runs on ${name} (${address}), over SSH from the project sandbox`,
  status: {
    pending: 'Waiting for your decision',
    sending: 'Sending your decision...',
    approved: 'Approved: the command runs.',
    denied: 'Denied: the command did not run.',
    expired: 'Expired: the command did not run.',
  },
} as const;

/** Roles of DevOps Helper messages: the chat roles plus approval requests. */
export const DEVOPS_HELPER_ROLES = ['user', 'assistant', 'approval'] as const;
export type DevopsHelperRole = (typeof DEVOPS_HELPER_ROLES)[number];

export const DEVOPS_HELPER_WARNING = {
  title: 'Important Notice',
  body: 'The DevOps Helper has full command access in your sandbox and on your VPS. Every command it wants to run is shown to you first and runs only after you approve it.',
  recommendedUsage: [
    'Read each command before approving it.',
    'Prefer read-only investigation before changes.',
    'Keep backups of anything you cannot lose.',
  ],
  checkbox: 'I understand that the DevOps Helper can run commands with full access once I approve them.',
  proceed: 'I Understand - Proceed',
} as const;

export const DEVOPS_HELPER_ERRORS = {
  sendWithRetry: 'Failed to send message. Please try again.',
  send: 'Failed to send message',
  /** 'Server error: {data}' */
  server: (data: string): string => `Server error: ${data}`,
} as const;

/** The DevOps Helper page's query parameter carrying a prepared question (`/app/{id}/home/devops-helper?ask=…`). */
export const DEVOPS_HELPER_ASK_PARAM = 'ask';

/** The question a failed validation check prepares for the DevOps Helper: the check, its command and how it failed. */
export const failedCheckQuestion = (check: { number: number; title: string; command: string | null; failure: string }): string =>
  [
    `Validation check ${check.number} (${check.title}) failed${check.failure ? `: ${check.failure}` : ''}.`,
    ...(check.command ? ['', 'Its command:', check.command.length > 1_500 ? `${check.command.slice(0, 1_500)}…` : check.command] : []),
    '',
    'What is wrong on the server, and how do I fix it?',
  ].join('\n');

export const VALIDATION_HELP = {
  ask: (n: number): string => `Ask the DevOps Helper about check ${n}`,
  title: 'Failed checks',
  text: 'The DevOps Helper can look at the server with you: it gets the check and its failure.',
} as const;
