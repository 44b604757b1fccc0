// Whether an edit of a connection drops its stored API key. The backend
// binds a key to the origin (scheme, host and port) and the provider it was
// entered for, and a save that changes either removes the key unless the
// same save brings one (docs/API.md, Connections). The dialog uses this to
// say so before the user saves; the backend decides, and the saved
// connection's apiKeySet is what the list shows afterwards.
import type { Connection } from '../../abi/types';

type Provider = Connection['provider'];

/** The address a provider uses when the connection leaves its own empty (as the backend's DefaultBaseURL). */
const DEFAULT_BASE_URL: Partial<Record<Provider, string>> = {
  anthropic: 'https://api.anthropic.com',
  google: 'https://generativelanguage.googleapis.com',
};

/**
 * keyOrigin is the server a connection's key goes to: scheme://host[:port], lower-cased, without the scheme's default port,
 * ignoring the path; the provider's default address when baseUrl is empty. null when the address is not an http(s) URL.
 */
export function keyOrigin(provider: Provider, baseUrl: string): string | null {
  const raw = baseUrl.trim() || DEFAULT_BASE_URL[provider] || '';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return null;
  return url.origin;
}

/**
 * dropsStoredKey reports whether saving a connection stored as `stored` with `provider` and `baseUrl` removes its stored
 * key: it has one, no new key is given, and the provider or the origin changes. An address that cannot be read counts
 * as a change (the save will be refused, or the backend reads it otherwise).
 */
export function dropsStoredKey(
  stored: Pick<Connection, 'provider' | 'baseUrl' | 'apiKeySet'>,
  provider: Provider,
  baseUrl: string,
  newKey: string,
): boolean {
  if (!stored.apiKeySet || newKey !== '') return false;
  if (provider !== stored.provider) return true;
  const before = keyOrigin(stored.provider, stored.baseUrl);
  const after = keyOrigin(provider, baseUrl);
  return before === null || after === null || before !== after;
}
