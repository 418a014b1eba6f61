/**
 * Texts and limits shared by every agent chat: the planning chats, the execution and validation chat
 * panels and the DevOps Helper (part 1 sections 2, 4, 5, 8; part 2 sections 2, 4, 8).
 */

export const CHAT = {
  /** Appended as an assistant message after the Stop control kills a generation. */
  generationStopped: 'Generation stopped by user.',
  /** Appended as an assistant message when a stream fails (not after a user stop). */
  errorReply: 'Sorry, I encountered an error. Please try again.',
  /** Assistant bubble shown until the first streamed content arrives. */
  thinking: 'Thinking...',
  threadIdLabel: 'Thread ID',
  send: 'Send',
  stop: 'Stop',
  /** Longest message body the API accepts, in characters (same bound as `MessageBody` in api/common). */
  maxMessageLength: 20_000,
  /** Longest message the GET stream calls accept in their query string, in characters. */
  maxQueryMessageLength: 8_000,
} as const;

export const CHAT_ROLES = ['user', 'assistant'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];
