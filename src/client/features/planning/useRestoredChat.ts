import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { chatKey, selectChatThread, threadRestored } from '../chat/chatSlice';
import { useGetPlanningThreadQuery } from './planningApi';
import type { PlanningChat } from './planningChats';

/**
 * Conversations are durable: on first show, a planning chat reads its stored thread (and the model
 * that answers it) so that a reload shows the conversation again. Returns the chat's key.
 */
export function useRestoredChat(projectId: number, chat: PlanningChat): string {
  const key = chatKey(projectId, chat);
  const dispatch = useAppDispatch();
  const restored = useAppSelector((state) => selectChatThread(state, key).restored);
  const { data } = useGetPlanningThreadQuery({ projectId, agent: chat }, { skip: restored });
  useEffect(() => {
    if (data && !restored) {
      dispatch(threadRestored({ key, threadId: data.thread_id, model: data.model, messages: data.messages }));
    }
  }, [data, restored, key, dispatch]);
  return key;
}
