import { productOfImage, productIsSensitive, productMustStayPrivate } from '../verifier/catalogueKnowledge';

/**
 * A repository's compose file publishes what its authors found handy on their own machine (Qdrant on
 * 6333, Ollama on 11434). On a server, a database, cache, queue or search engine is reached by the
 * stack's services only, and an app holding logins or personal data is not served on public plain HTTP:
 * their published ports are bound to 127.0.0.1 (reachable through an SSH tunnel), and the plan says so.
 */

type Service = Record<string, unknown>;

/** `6333:6333`, `"8080:80/tcp"`, `{published, target}`; an address already bound (`127.0.0.1:…`) stays. */
function bindLocal(port: unknown): unknown {
  if (typeof port === 'string' || typeof port === 'number') {
    const text = String(port);
    const parts = text.split(':');
    if (parts.length >= 3) return port;
    return parts.length === 2 ? `127.0.0.1:${text}` : `127.0.0.1:${text}:${text.split('/')[0]}${text.includes('/') ? `/${text.split('/')[1]}` : ''}`;
  }
  if (port && typeof port === 'object' && !(port as { host_ip?: unknown }).host_ip) return { ...(port as object), host_ip: '127.0.0.1' };
  return port;
}

export function keepPrivate(services: Record<string, Service>): string[] {
  const notes: string[] = [];
  for (const [name, s] of Object.entries(services)) {
    if (!Array.isArray(s.ports) || !s.ports.length || typeof s.image !== 'string') continue;
    const product = productOfImage(s.image);
    const why = productMustStayPrivate(product) ? 'only the stack\'s services reach it' : productIsSensitive(product) ? 'it holds logins or personal data and would be served on public plain HTTP' : undefined;
    if (!why) continue;
    const bound = s.ports.map(bindLocal);
    if (JSON.stringify(bound) === JSON.stringify(s.ports)) continue;
    s.ports = bound;
    notes.push(`${name}: its published ports are bound to 127.0.0.1 (${why}); reach it through an SSH tunnel, or give it a domain with TLS.`);
  }
  return notes;
}
