/**
 * @module webhook/webhook-signature
 * Signing and verifying outbound webhooks (docs/protocol.md §10). The body `{event, data, isError,
 * requestId}` is serialised once and sent as is; `X-Signature` is the lowercase hex of the server
 * passport key's Ed25519 signature over the 32-byte SHA-256 of `body + X-Timestamp` (UTF-8).
 *
 * A receiver accepts a request when every header is present, `X-Timestamp` is within 300 s in the
 * past and 30 s in the future, the key in `X-Passport-Public-Key` is the expected server passport's
 * (a pinned key, or the keys a resolver returns for the expected server token id — never the token
 * id the request names by itself, which a sender could choose), `X-Passport-Implicit-Account` is that
 * key's hex, and the signature verifies over the raw body as received. Otherwise
 * `PassportError('WEBHOOK_SIGNATURE_INVALID', {reason})`. Replay protection is the receiver's choice:
 * with a ReplayStore the same signature is accepted once (`reason: 'replayed'`); without one a captured
 * request is accepted again until its timestamp leaves the window. Each delivery of one event (one per
 * hook path) carries its own timestamp, so its own signature: one store can serve every hook path.
 * The hook path is not signed: a delivery captured on one path is accepted once on the other.
 *
 * Receivers that require a session: a webhook caused by a JWT call (the test webhook of
 * `/api/testhola`) carries that JWT's `session_id` in the signed body, and `X-Passport-Session-Id`
 * repeats it for routing before the body is read. The verified result exposes it; a header that
 * disagrees with the signed body is refused (`session_id_mismatch`), since only the body is signed.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { decodeBase64Url, encodeBase64Url } from '../codecs/base64url.codec.js';
import { decodeHex, encodeHex } from '../codecs/hex.codec.js';
import { bytesEqual, concatBytes, fromUtf8, utf8 } from '../codecs/utf8.codec.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { PassportError } from '../errors/passport.error.js';
import { type Clock } from '../ports/clock.port.js';
import { type ReplayStore } from '../ports/replay-store.port.js';
import { type SignatureVerifier, type Signer } from '../ports/signature-verifier.port.js';

export const WEBHOOK_MAX_PAST_MS = 300_000;
export const WEBHOOK_MAX_FUTURE_MS = 30_000;

export const WEBHOOK_HEADERS = Object.freeze({
  timestamp: 'X-Timestamp',
  signature: 'X-Signature',
  requestId: 'X-Request-Id',
  publicKey: 'X-Passport-Public-Key',
  implicitAccount: 'X-Passport-Implicit-Account',
  tokenId: 'X-Passport-Token-Id',
  sessionId: 'X-Passport-Session-Id',
} as const);

export interface WebhookPayload<T = unknown> {
  readonly event: string;
  readonly data: T;
  readonly isError: boolean;
  readonly requestId: string;
  /** The session of the JWT whose call caused the webhook, when one did (body key `session_id`). */
  readonly session_id?: string;
}

export interface SignedWebhook {
  /** The exact bytes to send (as UTF-8 text). */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type WebhookRejection =
  | 'missing_header'
  | 'timestamp_invalid'
  | 'timestamp_stale'
  | 'timestamp_future'
  | 'public_key_invalid'
  | 'implicit_account_mismatch'
  | 'token_id_mismatch'
  | 'key_not_expected'
  | 'signature_malformed'
  | 'signature_invalid'
  | 'body_invalid'
  | 'session_id_mismatch'
  | 'replayed';

/** The message whose SHA-256 is signed: UTF-8 of `body + timestamp`. */
export function webhookDigest(body: string | Uint8Array, timestamp: string): Uint8Array {
  const bodyBytes = typeof body === 'string' ? utf8(body) : body;
  return sha256(concatBytes(bodyBytes, utf8(timestamp)));
}

export function signWebhook(params: {
  readonly payload: WebhookPayload;
  readonly signer: Signer;
  readonly serverTokenId: string;
  readonly timestampMs: number;
}): SignedWebhook {
  const { event, data, isError, requestId, session_id: sessionId } = params.payload;
  const body = JSON.stringify(
    sessionId === undefined
      ? { event, data, isError, requestId }
      : { event, data, isError, requestId, session_id: sessionId },
  );
  const timestamp = String(Math.trunc(params.timestampMs));
  const signature = encodeHex(params.signer.sign(webhookDigest(body, timestamp)));
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      [WEBHOOK_HEADERS.timestamp]: timestamp,
      [WEBHOOK_HEADERS.signature]: signature,
      [WEBHOOK_HEADERS.requestId]: requestId,
      [WEBHOOK_HEADERS.publicKey]: encodeBase64Url(params.signer.publicKey),
      [WEBHOOK_HEADERS.implicitAccount]: encodeHex(params.signer.publicKey),
      [WEBHOOK_HEADERS.tokenId]: params.serverTokenId,
      ...(sessionId === undefined ? {} : { [WEBHOOK_HEADERS.sessionId]: sessionId }),
    },
  };
}

/** Who may have signed: a pinned key, or the current keys of the expected server passport. */
export type ExpectedWebhookSender =
  | { readonly expectedServerPublicKey: Uint8Array; readonly expectedServerTokenId?: string }
  | {
      readonly expectedServerTokenId: string;
      readonly resolveServerKeys: (tokenId: string) => Promise<readonly Uint8Array[]>;
    };

export type VerifyWebhookParams = ExpectedWebhookSender & {
  /** Request headers as received (any case; arrays take their first value). */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The raw body as received: never a re-serialisation of parsed JSON. */
  readonly body: string | Uint8Array;
  readonly clock: Clock;
  readonly verifier?: SignatureVerifier;
  /** When given, each signature is accepted once. */
  readonly replay?: ReplayStore;
};

export interface VerifiedWebhook {
  readonly payload: WebhookPayload;
  readonly timestampMs: number;
  readonly serverTokenId: string;
  readonly serverPublicKey: Uint8Array;
  /** The caller's session the signed body names (`session_id`), or null when it names none. */
  readonly sessionId: string | null;
}

export async function verifyWebhookRequest(params: VerifyWebhookParams): Promise<VerifiedWebhook> {
  const header = headerReader(params.headers);
  const timestamp = header(WEBHOOK_HEADERS.timestamp);
  const signatureText = header(WEBHOOK_HEADERS.signature);
  const publicKeyText = header(WEBHOOK_HEADERS.publicKey);
  const implicitAccount = header(WEBHOOK_HEADERS.implicitAccount);
  const tokenId = header(WEBHOOK_HEADERS.tokenId);
  for (const [name, value] of [
    [WEBHOOK_HEADERS.timestamp, timestamp],
    [WEBHOOK_HEADERS.signature, signatureText],
    [WEBHOOK_HEADERS.publicKey, publicKeyText],
    [WEBHOOK_HEADERS.implicitAccount, implicitAccount],
    [WEBHOOK_HEADERS.tokenId, tokenId],
  ] as const) {
    if (!value) throw rejected('missing_header', { header: name });
  }

  if (!/^\d{1,16}$/.test(timestamp!)) throw rejected('timestamp_invalid');
  const timestampMs = Number(timestamp);
  const nowMs = params.clock.nowMs();
  if (nowMs - timestampMs > WEBHOOK_MAX_PAST_MS) throw rejected('timestamp_stale');
  if (timestampMs - nowMs > WEBHOOK_MAX_FUTURE_MS) throw rejected('timestamp_future');

  const publicKey = decodeBase64Url(publicKeyText!);
  if (!publicKey || publicKey.length !== 32) throw rejected('public_key_invalid');
  if (implicitAccount!.toLowerCase() !== encodeHex(publicKey)) throw rejected('implicit_account_mismatch');
  if (params.expectedServerTokenId !== undefined && tokenId !== params.expectedServerTokenId)
    throw rejected('token_id_mismatch');
  // Whatever the caller's pinned key or resolver turns out to give (null, undefined, not bytes), a key
  // is expected only when it is given as bytes: anything else rejects as not expected rather than
  // throwing a TypeError. A resolver's own error (its chain down) is passed on as it is.
  let expectedKeys: unknown;
  if ('expectedServerPublicKey' in params && params.expectedServerPublicKey !== undefined)
    expectedKeys = [params.expectedServerPublicKey];
  else if ('resolveServerKeys' in params && typeof params.resolveServerKeys === 'function')
    expectedKeys = await params.resolveServerKeys(params.expectedServerTokenId);
  if (
    !Array.isArray(expectedKeys) ||
    !expectedKeys.some((key) => key instanceof Uint8Array && bytesEqual(key, publicKey))
  )
    throw rejected('key_not_expected');

  const signature = /^[0-9a-fA-F]{128}$/.test(signatureText!) ? decodeHex(signatureText!) : null;
  if (!signature) throw rejected('signature_malformed');
  const verifier = params.verifier ?? createNobleVerifier();
  if (verifier.verify(signature, webhookDigest(params.body, timestamp!), publicKey) !== true)
    throw rejected('signature_invalid');

  const payload = parsePayload(params.body);
  if (!payload) throw rejected('body_invalid');
  const sessionId = payload.session_id ?? null;
  const sessionHeader = header(WEBHOOK_HEADERS.sessionId);
  if (sessionHeader !== undefined && sessionHeader !== sessionId) throw rejected('session_id_mismatch');
  if (params.replay) {
    const outcome = await params.replay.recordIfAbsent(
      `webhook|${signatureText!.toLowerCase()}`,
      nowMs,
      timestampMs + WEBHOOK_MAX_PAST_MS + WEBHOOK_MAX_FUTURE_MS,
    );
    if (!outcome.recorded) throw rejected('replayed');
  }
  return { payload, timestampMs, serverTokenId: tokenId!, serverPublicKey: publicKey, sessionId };
}

function parsePayload(body: string | Uint8Array): WebhookPayload | null {
  const text = typeof body === 'string' ? body : fromUtf8(body);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { event, data, isError, requestId, session_id: sessionId } = value as Record<string, unknown>;
  if (typeof event !== 'string' || typeof isError !== 'boolean' || typeof requestId !== 'string') return null;
  if (sessionId === undefined) return { event, data, isError, requestId };
  if (typeof sessionId !== 'string') return null;
  return { event, data, isError, requestId, session_id: sessionId };
}

function headerReader(headers: VerifyWebhookParams['headers']): (name: string) => string | undefined {
  const lower = new Map<string, string>();
  for (const [key, value] of Object.entries(headers)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && !lower.has(key.toLowerCase())) lower.set(key.toLowerCase(), first);
  }
  return (name) => lower.get(name.toLowerCase());
}

function rejected(reason: WebhookRejection, extra: Record<string, unknown> = {}): PassportError {
  return new PassportError('WEBHOOK_SIGNATURE_INVALID', { reason, ...extra });
}
