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
 *
 * Only a renewal of this session is taken: a `New-Token` counts when the response comes from the
 * origin the request was sent to (not the target of a cross-origin redirect; a relative URL is
 * resolved against the page's location) and is not opaque (the server renews before the handler runs,
 * so a 4xx or 5xx answer can carry a genuine renewal), the token is three
 * base64url segments whose payload has the current token's `session_id`, `iss`, `aud` and `sub`, and
 * its `exp` is a whole number of seconds. Anything else is ignored (else the wrapper could adopt
 * another session's token, a payload without a signature, a token offered by a redirect's target,
 * or `exp: 1e400`, which would block every later renewal). `onNewToken` calls run one after another, in
 * the order the tokens were taken.
 *
 * The token goes only to the API: the origins in `origins`, else the token's own server (the federated
 * claim `passport_subjectuniqueidentifier_url` of a token a server issued for a foreign passport, else
 * `iss`; a server under a path, `https://host/passport`, is that path and what lies below it, not the
 * rest of its host), else, for a token naming no http(s) server, the origin of the first request made
 * with the wrapper. A request anywhere else goes out as the caller wrote it, without the token, and no
 * `New-Token` is taken from its answer (else an agent fetching a URL from a peer's profile through the
 * same client would send its bearer token there; "the first request" alone would let that peer be the
 * first). An opaque origin (`data:`, `file:`) is never one.
 */
import { decodeBase64Url } from '../codecs/base64url.codec.js';
import { fromUtf8 } from '../codecs/utf8.codec.js';

export const NEW_TOKEN_HEADER = 'New-Token';

export interface RenewingFetchOptions {
  /** The JWT from `POST /api/login`. */
  readonly token: string;
  /** The fetch to wrap (default: the global one). */
  readonly fetch?: typeof fetch | undefined;
  /** Called with each token taken into use (e.g. to save it); awaited before the response is returned. */
  readonly onNewToken?: ((token: string) => void | Promise<void>) | undefined;
  /** Called when a response ends the session (logout's termination token). */
  readonly onSessionClosed?: (() => void) | undefined;
  /**
   * The origins the token is sent to (`https://id.example.com`; a URL is read as its origin). Default:
   * the token's own server: the URL its `iss` names (the deployment's `PUBLIC_BASE_URL`; a foreign
   * passport's token, its `passport_subjectuniqueidentifier_url`), and under that URL's path when it
   * has one. A request to any other origin goes out without the token (the API answers 401
   * `MISSING_TOKEN`). Give it when the API is called through another URL than the one the token names
   * (`http://127.0.0.1:3000` for a token of `http://localhost:3000`, a proxy, an internal address).
   */
  readonly origins?: readonly string[] | undefined;
}

export interface RenewingFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The token the next request will send. */
  token(): string;
}

/** The claims that say which session a token belongs to (a renewal keeps every one of them). */
const SESSION_CLAIMS = ['session_id', 'iss', 'aud', 'sub', 'session_exp'] as const;
const BASE64URL_SEGMENT = /^[A-Za-z0-9_-]+$/;

interface TokenFacts {
  readonly exp: number;
  readonly status: unknown;
  readonly session: readonly unknown[];
}

/**
 * `exp`, `session_status` and the session claims of a JWT-shaped token, read without verifying it (the
 * server verifies; this only orders tokens and keeps them to one session); null when it is not one.
 */
function factsOf(token: string): TokenFacts | null {
  const segments = token.split('.');
  if (segments.length !== 3 || !segments.every((s) => BASE64URL_SEGMENT.test(s))) return null;
  const bytes = decodeBase64Url(segments[1]);
  const text = bytes === null ? null : fromUtf8(bytes);
  if (text === null) return null;
  try {
    const claims = JSON.parse(text) as unknown;
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return null;
    const { exp, session_status: status } = claims as Record<string, unknown>;
    if (typeof exp !== 'number' || !Number.isSafeInteger(exp)) return null;
    // A token never outlives its session: an exp past session_exp is not one the server signs.
    const sessionExp = (claims as Record<string, unknown>).session_exp;
    if (typeof sessionExp === 'number' && exp > sessionExp) return null;
    return {
      exp,
      status,
      session: SESSION_CLAIMS.map((c) => JSON.stringify((claims as Record<string, unknown>)[c])),
    };
  } catch {
    return null;
  }
}

/** Where the token may go: an origin, and within it a path and what lies below it ('' for all of it). */
interface ApiScope {
  readonly origin: string;
  readonly path: string;
}

/**
 * The server a token names (its federated claim, else `iss`) when it is an http(s) URL, as a
 * one-element list: its origin and its path (another application under the same host is not the API);
 * undefined otherwise (read without verifying: this only decides where to send it).
 */
function tokenServerScope(token: string): readonly ApiScope[] | undefined {
  const payload = typeof token === 'string' ? token.split('.')[1] : undefined;
  const bytes = payload === undefined ? null : decodeBase64Url(payload);
  const text = bytes === null ? null : fromUtf8(bytes);
  if (text === null) return undefined;
  try {
    const claims = JSON.parse(text) as Record<string, unknown> | null;
    // The federated claim when it is a URL (a local token has null, or "" from some issuers), else iss.
    const isHttp = (value: unknown): value is string =>
      typeof value === 'string' && /^https?:\/\//i.test(value);
    const federated = claims?.passport_subjectuniqueidentifier_url;
    const server = isHttp(federated) ? federated : claims?.iss;
    if (!isHttp(server)) return undefined;
    const { origin, pathname } = new URL(server);
    return [{ origin, path: pathname.replace(/\/+$/, '') }];
  } catch {
    return undefined;
  }
}

const sameSession = (a: TokenFacts, b: TokenFacts) => a.session.every((claim, i) => claim === b.session[i]);

/**
 * The URL a request goes to: a relative URL against the page's location (browsers), a `Request` of
 * any fetch implementation by its `url`; null when it cannot be told.
 */
function urlOf(input: string | URL | Request): URL | null {
  const url = typeof input === 'object' && input !== null && 'url' in input ? input.url : String(input);
  try {
    return new URL(url, (globalThis as { location?: { href?: string } }).location?.href);
  } catch {
    return null;
  }
}

/** The origin a request goes to (`urlOf`); null when it cannot be told. */
function originOf(input: string | URL | Request): string | null {
  return urlOf(input)?.origin ?? null;
}

/** Whether `url` lies in `scope`: its origin, and its path or below it (`/passport`, `/passport/…`). */
function inScope(url: URL, scope: ApiScope): boolean {
  return (
    url.origin === scope.origin &&
    (scope.path === '' || url.pathname === scope.path || url.pathname.startsWith(`${scope.path}/`))
  );
}

export function createRenewingFetch(options: RenewingFetchOptions): RenewingFetch {
  // From JavaScript: a missing token would otherwise fail deep inside ("reading 'split'").
  if (typeof options?.token !== 'string')
    throw new TypeError('createRenewingFetch({ token }): the JWT to send is required, as a string');
  const send = options.fetch ?? globalThis.fetch.bind(globalThis);
  let current = options.token;
  const initial = factsOf(current);
  let currentExp = initial?.exp ?? -Infinity;
  let saving: Promise<void> = Promise.resolve();
  /** Set once the session's termination token was seen: no later offer is taken (a late renewal). */
  let ended = false;

  /** The offered token when it renews or ends this session, from the origin that was asked. */
  const offerOf = (input: string | URL | Request, response: Response): TokenFacts | null => {
    const offered = response.headers.get(NEW_TOKEN_HEADER);
    if (!offered || response.type === 'opaque' || response.status === 0 || initial === null) return null;
    // Refused when the answer's origin is known and is not the one asked, or the one asked cannot be
    // told (a relative URL outside a browser).
    const asked = originOf(input);
    const answered = response.url ? originOf(response.url) : null;
    if (answered !== null && asked !== answered) return null;
    const facts = factsOf(offered);
    return facts && sameSession(facts, initial) ? facts : null;
  };

  /** Where the token may go; set by the first request when neither `origins` nor the token names it. */
  let apiScopes: readonly ApiScope[] | undefined =
    options.origins?.map((o) => {
      const origin = originOf(o);
      if (origin === null || origin === 'null')
        throw new TypeError(`origins: ${JSON.stringify(o)} is not a URL`);
      return { origin, path: '' };
    }) ?? tokenServerScope(options.token);

  const wrapped = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = urlOf(input);
    if (url?.origin === 'null') return send(input, init); // an opaque origin: never the API
    if (apiScopes === undefined && url !== null) apiScopes = [{ origin: url.origin, path: '' }];
    if (url === null || !apiScopes?.some((scope) => inScope(url, scope))) return send(input, init);
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('Authorization', `Bearer ${current}`);
    const response = await send(input, { ...init, headers });
    const facts = ended ? null : offerOf(input, response);
    if (facts?.status === 'closed') {
      ended = true;
      options.onSessionClosed?.();
    } else if (facts && facts.exp > currentExp) {
      const offered = response.headers.get(NEW_TOKEN_HEADER)!;
      current = offered;
      currentExp = facts.exp;
      const onNewToken = options.onNewToken;
      if (onNewToken) {
        // After the writes of tokens taken before it; a failed write is this caller's to see, and the
        // next write still runs.
        const write = saving.then(() => onNewToken(offered));
        saving = write.catch(() => undefined);
        await write;
      }
    }
    return response;
  };
  return Object.assign(wrapped, { token: () => current });
}
