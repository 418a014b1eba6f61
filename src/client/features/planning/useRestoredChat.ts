import { chatKey } from '../../common/chat/chatSlice';
import { useChatRestored, useThreadRestore } from '../../common/chat/useThreadRestore';
import { useGetPlanningThreadQuery } from './planningApi';
import type { PlanningChat } from './planningChats';

/**
 * Conversations are durable: on first show, a planning chat reads its stored thread (and the model
 * that answers it) so that a reload shows the conversation again. Returns the chat's key.
 */
export function useRestoredChat(projectId: number, chat: PlanningChat): string {
  const key = chatKey(projectId, chat);
  const restored = useChatRestored(key);
  useThreadRestore(key, useGetPlanningThreadQuery({ projectId, agent: chat }, { skip: restored }));
  return key;
}
