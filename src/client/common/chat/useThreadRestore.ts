import { useEffect } from 'react';
import type { ChatThreadResponse } from '../../../shared/api/common';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { selectChatThread, threadRestored } from './chatSlice';

/** Whether a chat's stored conversation was already read back on this page (then it is not asked for again). */
export function useChatRestored(key: string): boolean {
  return useAppSelector((state) => selectChatThread(state, key).restored);
}

/**
 * Puts a chat's stored conversation (an answer of the thread endpoints) into the chat once it has
 * arrived, so that a reload shows the conversation again; what this page said already stays after it.
 */
export function useThreadRestore(key: string, thread: { data?: ChatThreadResponse; isFetching: boolean }): void {
  const dispatch = useAppDispatch();
  const restored = useChatRestored(key);
  const { data, isFetching } = thread;
  useEffect(() => {
    if (restored || !data || isFetching) return;
    dispatch(threadRestored({ key, threadId: data.thread_id, model: data.model, messages: data.messages }));
  }, [restored, data, isFetching, key, dispatch]);
}
