import type { ModelChoice, ProviderName } from './models';

const PROVIDER_LABEL: Record<ProviderName, string> = { openai: 'OpenAI', anthropic: 'Anthropic', offline: 'The offline planner' };
const KEY_SETTING: Record<ProviderName, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', offline: '' };

interface ProviderErrorShape {
  status?: number;
  code?: string;
  type?: string;
  name?: string;
  message?: string;
  error?: { type?: string; code?: string; error?: { type?: string } };
  cause?: { code?: string; cause?: { code?: string } };
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * What a failed model call tells the person (issue 11 item 6): the provider by name and what happened
 * — a refused key (401/403), rate limiting (429), a spent quota, an unknown model (404), the provider
 * down (5xx, 529) or unreachable — so that the fix is clear. Null for an error that is not the
 * provider's answer (the turn's own generic message then stands). The OpenAI and Anthropic SDKs both
 * set `status` on an API error and name a connection failure `APIConnectionError`.
 */
export function modelErrorMessage(error: unknown, model: Pick<ModelChoice, 'provider' | 'name'>): string | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as ProviderErrorShape;
  const who = PROVIDER_LABEL[model.provider];
  const kinds = [e.code, e.type, e.error?.type, e.error?.code, e.error?.error?.type].filter(Boolean).join(' ');
  if (/insufficient_quota|billing|credit balance/i.test(`${kinds} ${e.message ?? ''}`)) {
    return `${who} refused the request: the account's quota or credit is used up. Add credit or raise the limit with ${who}, then send the message again.`;
  }
  switch (e.status) {
    case 401:
    case 403:
      return `${who} refused the API key (${e.status}). Check ${KEY_SETTING[model.provider] || 'the key'} in the server's configuration.`;
    case 404:
      return `${who} does not know the model "${model.name}" (404). Check the model name in the server's configuration.`;
    case 429:
      return `${who} is rate limiting requests (429). Wait a moment, then send the message again.`;
  }
  if (e.status !== undefined && (e.status >= 500 || e.status === 529)) {
    return `${who} is unavailable right now (${e.status}). Try again in a few minutes.`;
  }
  const code = e.cause?.code ?? e.cause?.cause?.code ?? e.code;
  if (/Connection/.test(e.name ?? '') || (code && CONNECTION_CODES.has(code))) {
    return `${who} could not be reached${code ? ` (${code})` : ''}. Check that the endpoint is up and its address in the server's configuration.`;
  }
  return null;
}
