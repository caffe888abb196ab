/**
 * The bearer tier closes a holder's session only on a refusal the chain confirms: a passport found
 * missing or with another owner is read once more past the chain cache, and the session is closed only
 * if that answer refuses it too; a revocation, never undone on chain, is believed at once. One answer of
 * a lagging RPC node (an older block) must not end a session the chain still backs; a chain that cannot
 * be read for the second answer is a 503 that leaves the session open.
 */
import { CachingChainReader } from '@passport/adapters/caching';
import { PassportError, type ChainReader, type PassportRecord } from '@passport/core';
import { MemoryChainReader, MemorySessionStore } from '@passport/core/memory';
import { ServerPassportCheck } from '../platform/chain/server-passport.check.js';
import { BearerAuthenticator } from './bearer.authenticator.js';
import { freshJwtCodec, openSessionBearer } from './testing/session-fixtures.js';

const ISSUER = 'http://127.0.0.1:1';
const AUDIENCE = 'owner.near';
const HOLDER = 'abcdefghijkl';
const SERVER = 'lkjihgfedcba';
const NOW = Date.now();
const holder: PassportRecord = {
  tokenId: HOLDER,
  ownerId: 'o',
  contractId: 'c',
  metadata: {},
  revoked: false,
};

/** A node behind a pool: the next `getPassport` answers of the holder are the queued ones, then the chain's. */
class LaggingNode implements ChainReader {
  readonly answers: Array<PassportRecord | null | Error> = [];
  reads = 0;
  /** How long the node takes to answer a read of the holder (as a real node does). */
  delayMs = 0;
  constructor(private readonly chain: MemoryChainReader) {}
  get contractId(): string {
    return this.chain.contractId;
  }
  async getPassport(tokenId: string): Promise<PassportRecord | null> {
    if (tokenId !== HOLDER) return this.chain.getPassport(tokenId);
    this.reads++;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const queued = this.answers.shift();
    if (queued instanceof Error) throw queued;
    return queued === undefined ? this.chain.getPassport(tokenId) : queued;
  }
  listPassportsByOwner: ChainReader['listPassportsByOwner'] = (a, p) => this.chain.listPassportsByOwner(a, p);
  listPassports: ChainReader['listPassports'] = (p) => this.chain.listPassports(p);
  getAccountKeys: ChainReader['getAccountKeys'] = (a) => this.chain.getAccountKeys(a);
  chainTimeMs: ChainReader['chainTimeMs'] = () => this.chain.chainTimeMs();
}

async function setUp() {
  const clock = { nowMs: () => NOW };
  const codec = freshJwtCodec({ issuer: ISSUER, audience: AUDIENCE, clock });
  const memory = new MemoryChainReader({
    contractId: 'c',
    chainTime: NOW,
    passports: [
      holder,
      { tokenId: SERVER, ownerId: AUDIENCE, contractId: 'c', metadata: {}, revoked: false },
    ],
  });
  const node = new LaggingNode(memory);
  const chain = new CachingChainReader(node);
  const sessions = new MemorySessionStore();
  const authenticator = new BearerAuthenticator(
    codec,
    sessions,
    clock,
    chain,
    new ServerPassportCheck({ tokenId: SERVER, ownerId: AUDIENCE }, chain),
  );
  const header = await openSessionBearer(codec, sessions, {
    sessionId: 'sess_a',
    tokenId: HOLDER,
    ownerId: 'o',
    issuer: ISSUER,
    audience: AUDIENCE,
    nowMs: NOW,
  });
  const outcome = async (): Promise<string> => {
    try {
      const auth = await authenticator.authenticate(header);
      return `ok ${auth.passport?.ownerId}`;
    } catch (error) {
      return error instanceof PassportError
        ? `${error.code} ${JSON.stringify(error.details)}`
        : String(error);
    }
  };
  const sessionClosedAs = async () => (await sessions.get('sess_a'))?.closeReason ?? null;
  return { memory, node, chain, outcome, sessionClosedAs };
}

describe('BearerAuthenticator: a refusal is confirmed by a second read before the session is closed', () => {
  it.each([
    ['not found', null],
    ['owned by its former owner', { ...holder, ownerId: 'former-owner.near' }],
  ])(
    'one answer of a lagging node (%s), then the chain again: the request passes and the session stays open',
    async (_, stale) => {
      const { node, outcome, sessionClosedAs } = await setUp();
      node.answers.push(stale);
      expect(await outcome()).toBe('ok o');
      expect(node.reads).toBe(2);
      expect(await sessionClosedAs()).toBeNull();
      // The second answer is the one cached: the next request reads nothing.
      expect(await outcome()).toBe('ok o');
      expect(node.reads).toBe(2);
    },
  );

  it('a passport the chain no longer holds: both answers agree, the session is closed (passport_not_found)', async () => {
    const { memory, node, outcome, sessionClosedAs } = await setUp();
    memory.removePassport(HOLDER);
    expect(await outcome()).toBe(
      'INVALIDATED_TOKEN {"reason":"error_checking_session","cause":"passport_not_found"}',
    );
    expect(node.reads).toBe(2);
    expect(await sessionClosedAs()).toBe('passport_not_found');
  });

  it('a revocation is believed at once (never undone on chain): no re-read, and a lagging node cannot let the holder back in', async () => {
    const { memory, node, outcome, sessionClosedAs } = await setUp();
    memory.revokePassport(HOLDER);
    // The node behind the pool would answer the passport as it was before the revocation.
    node.answers.push({ ...holder, revoked: true }, holder, holder);
    expect(await outcome()).toBe(
      'INVALIDATED_TOKEN {"reason":"error_checking_session","cause":"passport_revoked"}',
    );
    expect(node.reads).toBe(1);
    expect(await sessionClosedAs()).toBe('passport_revoked');
    expect(await outcome()).toBe(
      'INVALIDATED_TOKEN {"reason":"error_checking_session","cause":"session_closed"}',
    );
  });

  it('requests refused at once share one re-read: 20 requests of a transferred passport cost two chain reads', async () => {
    const { memory, node, outcome, sessionClosedAs } = await setUp();
    memory.replacePassport({ ...holder, ownerId: 'new-owner.near' });
    node.delayMs = 20;
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => outcome()));
    // Every one refused: by the confirmed transfer, or, once it closed the session, by that.
    expect([...new Set(outcomes)].sort()).toEqual(
      expect.arrayContaining([
        'INVALIDATED_TOKEN {"reason":"error_checking_session","cause":"passport_transferred"}',
      ]),
    );
    for (const answer of outcomes) expect(answer).toMatch(/cause":"(passport_transferred|session_closed)"/);
    expect(node.reads).toBe(2);
    expect(await sessionClosedAs()).toBe('passport_transferred');
  });

  it('the second answer refuses for another reason: the session is closed with that one', async () => {
    const { memory, node, outcome, sessionClosedAs } = await setUp();
    memory.replacePassport({ ...holder, ownerId: 'new-owner.near' });
    node.answers.push(null);
    expect(await outcome()).toBe(
      'INVALIDATED_TOKEN {"reason":"error_checking_session","cause":"passport_transferred"}',
    );
    expect(await sessionClosedAs()).toBe('passport_transferred');
  });

  it('the chain cannot be read for the second answer: 503 chain_unavailable, and the session stays open', async () => {
    const { node, outcome, sessionClosedAs } = await setUp();
    const { ChainUnavailableError } = await import('@passport/core/ports');
    node.answers.push(null, new ChainUnavailableError('node down'));
    expect(await outcome()).toBe('SERVICE_UNAVAILABLE {"reason":"chain_unavailable"}');
    expect(await sessionClosedAs()).toBeNull();
    expect(await outcome()).toBe('ok o');
  });
});

describe('CachingChainReader.rereadPassport', () => {
  it('asks the chain past a cached answer, and a read that began before it does not overwrite its answer', async () => {
    const { memory, chain, node } = await setUp();
    // A slow read of the old record is under way when the passport changes and is read again.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowAnswer = { ...holder, ownerId: 'stale.near' };
    const getPassport = node.getPassport.bind(node);
    node.getPassport = async () => (await gate, slowAnswer);
    const slow = chain.getPassport(HOLDER);
    node.getPassport = getPassport;
    memory.replacePassport({ ...holder, ownerId: 'fresh.near' });
    expect((await chain.rereadPassport(HOLDER))?.ownerId).toBe('fresh.near');
    release();
    expect((await slow)?.ownerId).toBe('stale.near');
    // The cache keeps the newer answer.
    expect(chain.peekPassport(HOLDER)?.ownerId).toBe('fresh.near');
  });
});
