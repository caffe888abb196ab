/**
 * @module client/renewing-fetch
 * A fetch for integrators calling the JWT tier: it sends `Authorization: Bearer <token>` and, when a
 * response carries `New-Token` (the server renews a token in the last 20 % of its lifetime), uses the
 * new token from then on. A long-lived agent thus keeps one session for as long as the session lasts
 * (`session_exp`), then logs in again on the 401.
 *
 * Responses may arrive out of order: a new token replaces the current one only when it expires later,
 * and never when it is a logout's termination token (`session_status: "closed"`); that one is reported
 * through `onSessionClosed` instead. Works wherever `fetch` exists (browsers, Node ≥ 18).
 */
import { decodeBase64Url } from '../codecs/base64url.codec.js';
import { fromUtf8 } from '../codecs/utf8.codec.js';

export const NEW_TOKEN_HEADER = 'New-Token';

export interface RenewingFetchOptions {
  /** The JWT from `POST /api/login`. */
  readonly token: string;
  /** The fetch to wrap (default: the global one). */
  readonly fetch?: typeof fetch;
  /** Called with each token taken into use (e.g. to save it); awaited before the response is returned. */
  readonly onNewToken?: (token: string) => void | Promise<void>;
  /** Called when a response ends the session (logout's termination token). */
  readonly onSessionClosed?: () => void;
}

export interface RenewingFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The token the next request will send. */
  token(): string;
}

interface TokenFacts {
  readonly exp: number;
  readonly status: unknown;
}

/** `exp` and `session_status` of a JWT, read without verifying it (the server verifies; this only orders tokens). */
function factsOf(token: string): TokenFacts | null {
  const payload = token.split('.')[1];
  const bytes = payload === undefined ? null : decodeBase64Url(payload);
  const text = bytes === null ? null : fromUtf8(bytes);
  if (text === null) return null;
  try {
    const claims = JSON.parse(text) as Record<string, unknown>;
    return typeof claims.exp === 'number' ? { exp: claims.exp, status: claims.session_status } : null;
  } catch {
    return null;
  }
}

export function createRenewingFetch(options: RenewingFetchOptions): RenewingFetch {
  const send = options.fetch ?? globalThis.fetch.bind(globalThis);
  let current = options.token;
  let currentExp = factsOf(current)?.exp ?? -Infinity;

  const wrapped = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('Authorization', `Bearer ${current}`);
    const response = await send(input, { ...init, headers });
    const offered = response.headers.get(NEW_TOKEN_HEADER);
    const facts = offered ? factsOf(offered) : null;
    if (offered && facts) {
      if (facts.status === 'closed') options.onSessionClosed?.();
      else if (facts.exp > currentExp) {
        current = offered;
        currentExp = facts.exp;
        await options.onNewToken?.(offered);
      }
    }
    return response;
  };
  return Object.assign(wrapped, { token: () => current });
}
