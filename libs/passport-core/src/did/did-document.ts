/**
 * @module did/did-document
 * The `did:passport` method (docs/protocol.md §4; DID Core 1.0): parsing a DID, the DID document of a
 * passport, and the method description served at `GET /.well-known/did`.
 *
 * Decisions:
 * - `parseDid` accepts exactly `did:passport:<12 lowercase letters>` (token ids are lowercase). Another
 *   case is `INVALID_DID` (`reason: 'not_lowercase'`, with the canonical DID): a resolver must answer a
 *   document whose `id` is the DID it was asked for (not `did:passport:cjef…` for
 *   `did:passport:CJEF…`). A DID URL (a fragment, query or path after a valid id) is `INVALID_DID`
 *   (`reason: 'did_url'`, with the bare DID as `canonical`: resolve that, then read the part in it); other
 *   methods are `INVALID_DID` too.
 * - The owner's key is `<did>#owner` (`Ed25519VerificationKey2018`, `publicKeyBase58` = raw 32-byte key,
 *   no multicodec prefix). A named owner account with several full-access keys gets `#owner`,
 *   `#owner-2`, …; one with no keys gets no verification method (it cannot sign, and the document says so).
 * - `alsoKnownAs` holds the `did:web` form `did:web:<host, ':' as %3A>:passport:<tokenId>`, which a
 *   did:web resolver fetches from `<publicBaseUrl>/passport/<tokenId>/did.json` (`didWebDocumentUrl`).
 *   That URL serves the same document with the did:web DID as its subject (`asDidWebDocument`): did:web
 *   requires the fetched document's `id` to be the DID resolved, so a resolver refused the did:passport one.
 * - A revoked passport's DID is deactivated: the document says `deactivated: true` (DID Core keeps that
 *   flag in the resolution's document metadata; these endpoints answer the document alone, so it is a
 *   property of the document here) and lists no key at all (`verificationMethod`, `authentication`,
 *   `assertionMethod` empty), so a DID consumer accepts no new proof from it. A key kept in
 *   `verificationMethod` alone was not enough (a probe): did-jwt, called without a proof purpose, searches
 *   every verification method and accepted a token signed after the revocation. The key that signed
 *   earlier is the owner account's, on the chain; a deactivated document lists none.
 * - `service`: the public profile and MCP discovery of this deployment always; `openapijson_url`,
 *   `webhook_url` and `subjectuniqueidentifier_url` from the metadata when each is an absolute http(s) URL (all self-declared);
 *   and `<did>#metadata` (`PassportTokenMetadata`) whose endpoint is an object
 *   `{tokenId, ownerAccountId, metadata}` carrying the token's on-chain metadata (public on chain
 *   anyway, `userselected_dn` included): client code reads the holder's display name, creature and
 *   contacts from it without a second request.
 */
import { encodeBase58 } from '../codecs/base58.codec.js';
import { PassportError } from '../errors/passport.error.js';
import { resolveOwnerKeys } from '../passport/owner-keys.js';
import { isPassportRevoked } from '../passport/passport-conditions.js';
import { type PassportRecord } from '../passport/passport.types.js';
import {
  hasHiddenText,
  hiddenTextReplaced,
  webhookUrlOrNull,
  webUrlOrNull,
} from '../profile/profile-links.js';
import { type ChainReader } from '../ports/chain-reader.port.js';
import { isTokenId, normalizeTokenId } from '../token-id/token-id.js';
import { normalizedBaseUrl } from '../federation/api-url.js';
import { printableText } from '../codecs/printable-text.js';
import { isBytes } from '@noble/hashes/utils.js';

export const DID_METHOD = 'passport';
export const DID_PREFIX = `did:${DID_METHOD}:`;
export const DID_CONTEXTS = Object.freeze([
  'https://www.w3.org/ns/did/v1',
  'https://w3id.org/security/suites/ed25519-2018/v1',
] as const);
export const OWNER_KEY_TYPE = 'Ed25519VerificationKey2018';

export interface ParsedDid {
  /** Canonical (lowercase) DID. */
  readonly did: string;
  readonly method: typeof DID_METHOD;
  readonly tokenId: string;
}

export interface DidVerificationMethod {
  readonly id: string;
  readonly type: typeof OWNER_KEY_TYPE;
  readonly controller: string;
  readonly publicKeyBase58: string;
}

/** The endpoint of the `#metadata` service: the token as the chain holds it, hidden text replaced (`publicMetadata`). */
export interface PassportTokenMetadataEndpoint {
  readonly tokenId: string;
  readonly ownerAccountId: string | null;
  readonly metadata: Record<string, string>;
}

export const TOKEN_METADATA_SERVICE_TYPE = 'PassportTokenMetadata';

export interface DidService {
  readonly id: string;
  readonly type: string;
  /** A URL, or (for `#metadata`) the token's metadata itself. */
  readonly serviceEndpoint: string | PassportTokenMetadataEndpoint;
}

export interface DidDocument {
  readonly '@context': readonly string[];
  readonly id: string;
  readonly controller: string;
  readonly alsoKnownAs: string[];
  readonly verificationMethod: DidVerificationMethod[];
  readonly authentication: string[];
  readonly assertionMethod: string[];
  readonly service: DidService[];
  /** Present (true) only when the passport is revoked: the DID is deactivated. */
  readonly deactivated?: true;
}

export interface DidDocumentOptions {
  /** This deployment's public URL (`PUBLIC_BASE_URL`), e.g. `https://id.example.com`. */
  readonly publicBaseUrl: string;
}

/** `did:passport:<tokenId>` (no validation: callers pass a known token id). */
export function passportDid(tokenId: string): string {
  return `${DID_PREFIX}${tokenId}`;
}

/** Parses a `did:passport` DID; throws `PassportError('INVALID_DID', {did, reason})` otherwise. */
export function parseDid(did: unknown): ParsedDid {
  if (typeof did !== 'string') throw invalidDid(did, 'not_a_string');
  if (!did.startsWith(DID_PREFIX))
    throw invalidDid(did, did.startsWith('did:') ? 'unsupported_method' : 'not_a_did');
  const written = did.slice(DID_PREFIX.length);
  // A DID URL (`#owner`, a path, a query) names something in or about a document: resolve its DID, then
  // read the part there. Saying so beats `invalid_token_id` for a token id that is valid (a probe).
  const urlOfDid = /^([A-Za-z]{12})[#/?]/.exec(written);
  if (urlOfDid) throw invalidDid(did, 'did_url', passportDid(urlOfDid[1].toLowerCase()));
  const tokenId = normalizeTokenId(written);
  if (tokenId === null) throw invalidDid(did, 'invalid_token_id');
  if (tokenId !== written) throw invalidDid(did, 'not_lowercase', passportDid(tokenId));
  return { did, method: DID_METHOD, tokenId };
}

function invalidDid(did: unknown, reason: string, canonical?: string): PassportError {
  // Echo at most 128 characters of what was sent: enough to debug, never a reflection vector for megabytes;
  // printable, so a bidi override or a control character cannot restyle the text a client shows (an audit).
  const echoed = typeof did === 'string' ? printableText(did, 128) : null;
  return new PassportError('INVALID_DID', { did: echoed, reason, ...(canonical ? { canonical } : {}) });
}

/** The DID document of a passport whose owner account holds `ownerKeys` (32-byte Ed25519 keys). */
export function buildDidDocument(
  record: Pick<PassportRecord, 'tokenId' | 'metadata'> & Partial<Pick<PassportRecord, 'ownerId' | 'revoked'>>,
  ownerKeys: Uint8Array | readonly Uint8Array[],
  options: DidDocumentOptions,
): DidDocument {
  // The caller's mistakes, refused rather than written into a document: an id that is no token id
  // (`did:passport:ab/../cd`) or a base that is no http(s) URL (`javascript:…` service endpoints).
  if (!isTokenId(record?.tokenId))
    throw new RangeError(
      `buildDidDocument: the token id must be 12 lowercase letters (got ${JSON.stringify(printableText(String(record?.tokenId), 40))})`,
    );
  const base = baseUrl(options?.publicBaseUrl, 'buildDidDocument');
  const keys = isBytes(ownerKeys) ? [ownerKeys] : [...ownerKeys];
  for (const key of keys) {
    if (!isBytes(key) || key.length !== 32)
      throw new RangeError('owner keys must be 32-byte Ed25519 public keys');
  }
  const did = passportDid(record.tokenId);
  const verificationMethod = keys.map((key, i): DidVerificationMethod => ({
    id: `${did}#owner${i === 0 ? '' : `-${i + 1}`}`,
    type: OWNER_KEY_TYPE,
    controller: did,
    publicKeyBase58: encodeBase58(key),
  }));
  // A revoked passport's key proves nothing new (module doc). Revoked as everywhere: the ledger's flag
  // or NEAR's metadata `revoked = "true"`.
  const revoked = isPassportRevoked({ revoked: record.revoked === true, metadata: record.metadata });
  const listed = revoked ? [] : verificationMethod;
  const keyIds = listed.map((m) => m.id);
  return {
    '@context': [...DID_CONTEXTS],
    id: did,
    controller: did,
    alsoKnownAs: [didWebAlias(record.tokenId, base)],
    verificationMethod: listed,
    authentication: [...keyIds],
    assertionMethod: [...keyIds],
    service: services(did, record, base),
    ...(revoked ? { deactivated: true as const } : {}),
  };
}

/**
 * The document of a passport as its did:web alias (`alsoKnownAs`) resolves: every id under the
 * did:web DID, and the did:passport DID as its alias. Keys, services and deactivation are unchanged.
 */
export function asDidWebDocument(document: DidDocument, options: DidDocumentOptions): DidDocument {
  const from = document.id;
  const tokenId = from.slice(DID_PREFIX.length);
  const to = didWebAlias(tokenId, options.publicBaseUrl);
  const moved = (id: string) => (id === from || id.startsWith(`${from}#`) ? to + id.slice(from.length) : id);
  return {
    ...document,
    id: to,
    controller: moved(document.controller),
    alsoKnownAs: [from],
    verificationMethod: document.verificationMethod.map((method) => ({
      ...method,
      id: moved(method.id),
      controller: moved(method.controller),
    })),
    authentication: document.authentication.map(moved),
    assertionMethod: document.assertionMethod.map(moved),
    service: document.service.map((service) => ({ ...service, id: moved(service.id) })),
  };
}

function services(
  did: string,
  record: Pick<PassportRecord, 'tokenId' | 'metadata'> & Partial<Pick<PassportRecord, 'ownerId'>>,
  base: string,
): DidService[] {
  const list: DidService[] = [
    {
      id: `${did}#profile`,
      type: 'PassportPublicProfile',
      serviceEndpoint: `${base}/api/identity/token/${encodeURIComponent(record.tokenId)}/public`,
    },
    { id: `${did}#mcp`, type: 'MCPDiscovery', serviceEndpoint: `${base}/.well-known/mcp` },
  ];
  const fromMetadata: Array<[key: string, fragment: string, type: string]> = [
    ['openapijson_url', 'openapi', 'OpenAPIDocument'],
    ['webhook_url', 'webhook', 'PassportWebhook'],
    ['subjectuniqueidentifier_url', 'home', 'PassportHomeApi'],
  ];
  for (const [key, fragment, type] of fromMetadata) {
    // The holder writes these and resolvers render them as links: absolute http(s) URLs only, as in
    // the public profile (profile-links); `#metadata` below carries the values as data (hidden text replaced).
    const value = record.metadata[key];
    // A webhook_url without a scheme is an https base URL (the webhook target's rule).
    const url = key === 'webhook_url' ? webhookUrlOrNull(value) : webUrlOrNull(value);
    if (url !== null) list.push({ id: `${did}#${fragment}`, type, serviceEndpoint: url });
  }
  list.push({
    id: `${did}#metadata`,
    type: TOKEN_METADATA_SERVICE_TYPE,
    serviceEndpoint: {
      tokenId: record.tokenId,
      ownerAccountId: typeof record.ownerId === 'string' && record.ownerId !== '' ? record.ownerId : null,
      metadata: publicMetadata(record.metadata),
    },
  });
  return list;
}

/**
 * The metadata's string values (a fresh object, keys in chain order). Characters that carry hidden text
 * are replaced by U+FFFD in values (tag characters in a DN can hide an instruction to agents, which
 * would reach MCP clients whole); line breaks stay, so JSON values stay JSON. A key holding such
 * characters, a control, or anything a value would have replaced (line and paragraph separators,
 * private-use characters, lone surrogates) is left out, never rewritten: rewritten keys can collide,
 * and a later one would replace the real `serviceprovider_signature`.
 */
function publicMetadata(metadata: PassportRecord['metadata']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata))
    if (typeof value === 'string' && !hasHiddenText(key) && hiddenTextReplaced(key) === key)
      out[key] = hiddenTextReplaced(value);
  return out;
}

/**
 * `did:web:<host>[:<path segment>…]:passport:<tokenId>` for this deployment (':' in the host as %3A;
 * a path of PUBLIC_BASE_URL, where the API is served, as segments, per did:web), which resolves to
 * `didWebDocumentUrl`. Without the path, a deployment under /api would name a document it does not
 * serve.
 */
export function didWebAlias(tokenId: string, publicBaseUrl: string): string {
  const url = new URL(baseUrl(publicBaseUrl, 'didWebAlias'));
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  return ['did:web', didIdChars(url.host), ...segments.map(encodeDidWebSegment), 'passport', tokenId].join(
    ':',
  );
}

/** A path segment as a did:web method-specific id part: percent-decoded from the URL, then written in DID characters. */
function encodeDidWebSegment(segment: string): string {
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // a malformed escape stays as written
  }
  return didIdChars(text);
}

/**
 * Text as DID Core's `idchar`s: letters, digits, `.`, `-`, `_`, and percent escapes for everything else.
 * `encodeURIComponent` alone leaves `~ ! ' ( ) *`, and an IPv6 host's `[`, `]` and `:`, which no DID may
 * hold (a probe: did-resolver's parser refused `did:web:host:~agents:…`).
 */
function didIdChars(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*~[\]:]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** Where a did:web resolver fetches the alias: `<publicBaseUrl>/passport/<tokenId>/did.json`. */
export function didWebDocumentUrl(tokenId: string, publicBaseUrl: string): string {
  return `${baseUrl(publicBaseUrl, 'didWebDocumentUrl')}/passport/${encodeURIComponent(tokenId)}/did.json`;
}

/**
 * The body of `GET /.well-known/did`: how the method works on this deployment. (The HTTP app adds the
 * status of each DID error code: statuses are the app's.)
 */
export function describeDidMethod(options: DidDocumentOptions) {
  const base = baseUrl(options?.publicBaseUrl, 'describeDidMethod');
  return {
    method: DID_METHOD,
    syntax: `${DID_PREFIX}<tokenId>`,
    tokenIdPattern: '^[a-z]{12}$',
    example: `${DID_PREFIX}bjbvcjzqbdsj`,
    resolve: `${base}/.well-known/did/resolve?did=${DID_PREFIX}{tokenId}`,
    methodDocument: `${base}/.well-known/did/passport/{tokenId}`,
    verificationMethodType: OWNER_KEY_TYPE,
    contexts: [...DID_CONTEXTS],
    alsoKnownAs: didWebAlias('{tokenId}', base),
    operations: {
      create: 'Minting a passport on chain creates the DID; there is no separate registration.',
      read: 'Resolve reads the passport and its current owner account from the chain: the owner key is #owner.',
      update:
        'Transferring the passport on chain changes the owner key; metadata changes change the services.',
      deactivate:
        'Revoking the passport on chain: its document then says deactivated: true and lists the key under no verification relationship; a revoked passport no longer verifies or logs in.',
    },
  };
}

/**
 * The deployment's base URL as the server reads PUBLIC_BASE_URL (`normalizedBaseUrl`), so that every
 * function here writes one spelling of it; a value that is no http(s) base URL (`javascript:…`, a
 * query) is the caller's mistake, thrown rather than written into documents.
 */
function baseUrl(url: unknown, caller: string): string {
  // A server passes one base for every document: read once (it is parsed as a URL), not per request.
  // The normalised base comes back too (buildDidDocument hands it to didWebAlias): both spellings hit.
  if (lastBase !== undefined && (url === lastBase.raw || url === lastBase.base)) return lastBase.base;
  const base = typeof url === 'string' ? normalizedBaseUrl(url) : null;
  if (base === null)
    throw new RangeError(`${caller}: publicBaseUrl must be an http(s) URL without query or fragment`);
  lastBase = { raw: url as string, base };
  return base;
}

let lastBase: { readonly raw: string; readonly base: string } | undefined;

/**
 * The current DID document of a passport, read through the chain port: the record, then its owner's
 * keys (so a transfer changes the key at once). null when no passport has this token id; chain
 * failures propagate as thrown.
 */
export async function resolveDidDocument(
  chain: ChainReader,
  tokenId: string,
  options: DidDocumentOptions,
): Promise<DidDocument | null> {
  const record = await chain.getPassport(tokenId);
  if (!record) return null;
  return buildDidDocument(record, await resolveOwnerKeys(chain, record.ownerId), options);
}
