import type { BaseMessage } from '@langchain/core/messages';

/** The text of a message, whatever its content's shape (a string or parts). */
export function messageText(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  return content
    .map((part) => (typeof part === 'string' ? part : part.type === 'text' && 'text' in part ? String(part.text) : ''))
    .join('');
}
