import {
  createApi,
  fetchBaseQuery,
  type BaseQueryFn,
  type FetchArgs,
  type FetchBaseQueryError,
  type FetchBaseQueryMeta,
} from '@reduxjs/toolkit/query/react';
import { CALL_ERRORS } from '../../shared/constants';
import { getInstallationId } from '../common/session';
import { API_BASE, endSession, setCallHeaders } from './callConventions';

/**
 * The error every endpoint rejects with: serialisable, and `message` is the text to show
 * (part 1 section 8: the server's `detail` or `message`, else 'HTTP {status}: {statusText or body}').
 */
export interface ApiError {
  /** HTTP status, or 'FETCH_ERROR' / 'CUSTOM_ERROR' when no answer came. */
  status: number | 'FETCH_ERROR' | 'PARSING_ERROR' | 'TIMEOUT_ERROR' | 'CUSTOM_ERROR';
  message: string;
  data?: unknown;
}

/** Answers without content (204) come back as null; JSON is parsed; anything else is text. */
async function contentHandler(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const text = await response.text();
  if (!text) return null;
  const type = response.headers.get('content-type') ?? '';
  if (/\bjson\b/i.test(type)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** For downloads: `query: () => ({ url, responseHandler: blobResponse })`. */
export const blobResponse = (response: Response): Promise<Blob> => response.blob();

const rawBaseQuery = fetchBaseQuery({
  baseUrl: API_BASE,
  credentials: 'same-origin',
  responseHandler: contentHandler,
  prepareHeaders: (headers) => {
    setCallHeaders(headers);
    if (!headers.has('Accept')) headers.set('Accept', 'application/json');
    return headers;
  },
});

function fieldText(data: unknown, field: 'detail' | 'message'): string | null {
  if (typeof data !== 'object' || data === null || !(field in data)) return null;
  const value = (data as Record<string, unknown>)[field];
  return typeof value === 'string' && value.trim() ? value : null;
}

function bodyText(data: unknown): string {
  if (data === null || data === undefined) return '';
  return typeof data === 'string' ? data : JSON.stringify(data);
}

/** Turns any failed fetch into the message part 1 section 8 prescribes. */
export function toApiError(error: FetchBaseQueryError, meta?: FetchBaseQueryMeta): ApiError {
  if (typeof error.status === 'number') {
    const data = error.data;
    const serverText = fieldText(data, 'detail') ?? fieldText(data, 'message');
    const statusText = meta?.response?.statusText ?? '';
    return {
      status: error.status,
      message: serverText ?? CALL_ERRORS.http(error.status, statusText || bodyText(data)),
      data,
    };
  }
  if (error.status === 'PARSING_ERROR') {
    return {
      status: error.originalStatus,
      message: CALL_ERRORS.http(error.originalStatus, meta?.response?.statusText || error.data),
      data: error.data,
    };
  }
  return { status: error.status, message: error.error };
}

/**
 * Sign Out has begun (the auth slice's state; read structurally: that slice is a lazy chunk's). From
 * then on no call but `/github…` goes out: a poll or a panel mounting while the session is being ended
 * would only be answered 401 by the server.
 */
const signingOut = (state: unknown): boolean => (state as { auth?: { signOutStatus?: string } }).auth?.signOutStatus === 'pending';

/** Calls a visitor who is not signed in makes: sign-in, and the support address and prices (public-config). */
const PUBLIC_PATHS = ['/github', '/public-config'];
const isPublic = (url: string): boolean => PUBLIC_PATHS.some((path) => url.startsWith(path));

/**
 * fetchBaseQuery with the call conventions of part 1 section 7 (callConventions.ts): every call but the
 * public ones (`/github…`, `/public-config`) needs the stored installation id (and none goes out once Sign
 * Out has begun), a 401 ends the session (session storage cleared, browser sent to /).
 */
export const baseQuery: BaseQueryFn<string | FetchArgs, unknown, ApiError, object, FetchBaseQueryMeta> = async (
  args,
  api,
  extraOptions,
) => {
  const url = typeof args === 'string' ? args : args.url;
  if ((!getInstallationId() || signingOut(api.getState())) && !isPublic(url)) {
    return { error: { status: 'CUSTOM_ERROR', message: CALL_ERRORS.noInstallationId } };
  }
  const result = await rawBaseQuery(args, api, extraOptions);
  if (!result.error) return result;
  if (result.error.status === 401) endSession();
  return { error: toApiError(result.error, result.meta), meta: result.meta };
};

/** Every tag any feature invalidates; features add endpoints with `apiSlice.injectEndpoints`. */
export const TAG_TYPES = ['User', 'Project', 'ProjectState', 'ProjectCosts', 'Credits', 'Transactions', 'Notifications'] as const;

/** The one RTK Query API of the app. */
export const apiSlice = createApi({
  reducerPath: 'api',
  baseQuery,
  tagTypes: TAG_TYPES,
  refetchOnFocus: true,
  refetchOnReconnect: true,
  endpoints: () => ({}),
});

/** Ours: what a request that never reached the server (offline, connection refused) says. */
export const NETWORK_ERROR = 'Could not reach the server. Check your connection.';

/** The message to show for any error a hook or `unwrap()` produced. */
export function errorMessage(error: unknown, fallback = 'Something went wrong'): string {
  if (typeof error === 'object' && error !== null) {
    // fetch's own words ('TypeError: Failed to fetch') mean nothing to a person.
    if ('status' in error && error.status === 'FETCH_ERROR') return NETWORK_ERROR;
    if ('message' in error && typeof error.message === 'string' && error.message) return error.message;
    if ('error' in error && typeof error.error === 'string' && error.error) return error.error;
  }
  return fallback;
}

/** The HTTP status of an error from a hook, if it had one. */
export function errorStatus(error: unknown): number | null {
  if (typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number') {
    return error.status;
  }
  return null;
}
