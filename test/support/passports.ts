/**
 * Test passports: mints passports of any condition into a running test app's ledger (signed into the
 * development family with its real family-root key, or not, or by another family), adds named
 * accounts, and logs in through the real HTTP API. The ledger adapter sees the file change without a
 * restart, exactly as with the `passport` tool.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  encodeBase64Url,
  parseNearCredentials,
  randomFaceTokenId,
  signFamilyMetadata,
  type PassportMetadata,
  type Signer,
} from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { familyRootTokenId } from '@passport/core/family';
import { formatNearPublicKey } from '@passport/core/credentials';
import { implicitAccountId } from '@passport/core/codecs';
import { createNodeSigner } from '@passport/core/node';
import { updateLedgerFile } from '@passport/adapters/ledger';
import { SERVER_IDENTITY } from '../../apps/api/src/platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../../apps/api/src/platform/infrastructure/server-identity.js';
import { type TestApp } from './test-app.js';

export interface TestKey {
  readonly seed: Uint8Array;
  readonly signer: Signer;
  /** The implicit account of this key (64 hex). */
  readonly accountId: string;
}

export function newKey(): TestKey {
  const seed = new Uint8Array(randomBytes(32));
  const signer = createNodeSigner(seed);
  return { seed, signer, accountId: implicitAccountId(signer.publicKey) };
}

export const ledgerFileOf = (app: TestApp): string => path.join(app.dataDir, 'ledger.json');

export function serverIdentityOf(app: TestApp): ServerIdentity {
  return app.app.get<ServerIdentity>(SERVER_IDENTITY);
}

export async function familyRootSigner(app: TestApp): Promise<Signer> {
  const text = await readFile(path.join(app.dataDir, 'keys', 'family-root.json'), 'utf8');
  return createNodeSigner(parseNearCredentials(text).secretSeed);
}

export interface MintOptions {
  /** The owner: a key (implicit account) or a named account (add its keys with addNamedAccount). */
  readonly owner?: TestKey | string;
  readonly tokenId?: string;
  /** Metadata overrides; `undefined` values remove the key. Applied before signing. */
  readonly metadata?: Partial<Record<keyof PassportMetadata, string | undefined>>;
  readonly revoked?: boolean;
  /** Who signs the family signature: the dev family root (default), another signer, or nobody. */
  readonly familySigner?: Signer | null;
  /** Replaces the whole metadata after signing (to forge a signature). */
  readonly tamper?: (metadata: Record<string, string>) => void;
}

export interface MintedPassport {
  readonly tokenId: string;
  readonly owner: TestKey | string;
}

export async function mintPassport(app: TestApp, options: MintOptions = {}): Promise<MintedPassport> {
  const owner = options.owner ?? newKey();
  const tokenId = options.tokenId ?? randomFaceTokenId(cryptoRandomInt);
  const server = serverIdentityOf(app);
  // Minted the issuer's way: no token_id in the metadata (the signature covers the record's id).
  const base: Record<string, string | undefined> = {
    serviceprovider_id: server.serviceProviderId,
    subjectuniqueidentifier_url: app.baseUrl,
    not_before: '',
    not_after: '',
    max_requests: '0',
    maxrq_window: '60',
    userselected_dn: 'NNSWF=Test,NSWF=Agent,Creature=robot',
    ...options.metadata,
  };
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) if (value !== undefined) metadata[key] = value;
  const signer = options.familySigner === undefined ? await familyRootSigner(app) : options.familySigner;
  if (signer) metadata.serviceprovider_signature = signFamilyMetadata(metadata, tokenId, signer);
  options.tamper?.(metadata);
  const ownerId = typeof owner === 'string' ? owner : owner.accountId;
  await updateLedgerFile(ledgerFileOf(app), (doc) => ({
    ...doc,
    passports: [
      ...doc.passports,
      { token_id: tokenId, owner_id: ownerId, metadata, ...(options.revoked ? { revoked: true } : {}) },
    ],
  }));
  return { tokenId, owner };
}

/** Adds (or extends) a named account with full-access keys. */
export async function addNamedAccount(app: TestApp, name: string, keys: readonly TestKey[]): Promise<void> {
  await updateLedgerFile(ledgerFileOf(app), (doc) => ({
    ...doc,
    accounts: {
      ...doc.accounts,
      [name]: [...(doc.accounts[name] ?? []), ...keys.map((k) => formatNearPublicKey(k.signer.publicKey))],
    },
  }));
}

/** Creates another family on the same ledger: its root passport (owned by a fresh key) and the root's signer. */
export async function mintOtherFamily(
  app: TestApp,
  rootId = 'otherroot',
): Promise<{ serviceProviderId: string; root: TestKey }> {
  const root = newKey();
  const contract = serverIdentityOf(app).passport.contractId;
  const rootTokenId = familyRootTokenId({ chain: 'local', contract }, rootId);
  await updateLedgerFile(ledgerFileOf(app), (doc) => ({
    ...doc,
    passports: [...doc.passports, { token_id: rootTokenId, owner_id: root.accountId, metadata: {} }],
  }));
  return { serviceProviderId: rootTokenId, root };
}

export interface LoginAttempt {
  readonly identifier: string;
  readonly kind?: 'passportid' | 'accountid';
  readonly key: TestKey;
  /** Shifts the signed challenge (stale or future challenges). */
  readonly shiftSeconds?: number;
  /** Re-use a challenge instead of fetching one. */
  readonly challenge?: { timestamp: number; timestamp_iso: string };
}

export async function fetchChallenge(baseUrl: string): Promise<{ timestamp: number; timestamp_iso: string }> {
  const res = await fetch(`${baseUrl}/api/login/timestamp`);
  return (await res.json()) as { timestamp: number; timestamp_iso: string };
}

export function signLogin(key: TestKey, identifier: string, timestampIso: string): string {
  return encodeBase64Url(key.signer.sign(new TextEncoder().encode(identifier + timestampIso)));
}

export interface LoginResult {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
  readonly challenge: { timestamp: number; timestamp_iso: string };
}

/**
 * One login. A challenge second is single use per passport: a second login of the same passport within
 * the same second is refused 401 `challenge_already_used` (so a test doing so passes or fails by the
 * clock). Sign another second: `shiftSeconds: -1`, or fetch one challenge and pass it with
 * `shiftSeconds: -i` for the i-th login (test/auth/session-bounds.e2e.spec.ts).
 */
export async function login(baseUrl: string, attempt: LoginAttempt): Promise<LoginResult> {
  let challenge = attempt.challenge ?? (await fetchChallenge(baseUrl));
  if (attempt.shiftSeconds) {
    const timestamp = challenge.timestamp + attempt.shiftSeconds;
    challenge = { timestamp, timestamp_iso: new Date(timestamp * 1000).toISOString() };
  }
  const kind = attempt.kind ?? 'passportid';
  const res = await fetch(`${baseUrl}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      [kind]: attempt.identifier,
      timestamp_iso: challenge.timestamp_iso,
      [kind === 'passportid' ? 'passportid_base64url_signature' : 'base64url_signature']: signLogin(
        attempt.key,
        attempt.identifier,
        challenge.timestamp_iso,
      ),
    }),
  });
  return { status: res.status, headers: res.headers, body: await res.json(), challenge };
}

/** Mints a valid passport and logs it in; returns its JWT. */
export async function mintAndLogin(
  app: TestApp,
  options: MintOptions = {},
): Promise<{ tokenId: string; jwt: string; key: TestKey }> {
  const key = typeof options.owner === 'object' ? options.owner : newKey();
  const minted = await mintPassport(app, { ...options, owner: options.owner ?? key });
  const result = await login(app.baseUrl, { identifier: minted.tokenId, key });
  if (result.status !== 200) throw new Error(`login failed: ${JSON.stringify(result.body)}`);
  return { tokenId: minted.tokenId, jwt: result.body.jwt_token, key };
}

export const bearer = (jwt: string): Record<string, string> => ({ authorization: `Bearer ${jwt}` });
