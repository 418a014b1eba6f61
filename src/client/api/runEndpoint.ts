import type { UnknownAction } from '@reduxjs/toolkit';
import { call, put } from 'redux-saga/effects';

interface QueryThunkResult<T> {
  unwrap: () => Promise<T>;
  unsubscribe?: () => void;
  reset?: () => void;
}

/** Dispatches an RTK Query thunk (query or mutation) and waits for its data; rejects with its ApiError. */
export function* runEndpoint<T>(thunk: unknown): Generator<unknown, T> {
  const request = (yield put(thunk as UnknownAction)) as QueryThunkResult<T>;
  try {
    return (yield call([request, request.unwrap])) as T;
  } finally {
    request.unsubscribe?.();
    request.reset?.();
  }
}
