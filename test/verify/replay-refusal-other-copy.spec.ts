/**
 * A replay store's refusal made by another copy of @passport/core. The adapters pin the exact core
 * version they were built with, so an application whose core differs gets two copies, and the adapters'
 * PassportErrors are not `instanceof` the application's PassportError (the core README: `isPassportError`
 * is true for either). The HOLA verifier recognised the store's REPLAY_STORE_FULL / REPLAY_QUOTA_EXCEEDED
 * by `instanceof` only, and answered them as REPLAY_STORE_UNAVAILABLE (a probe with a nested copy under
 * node_modules/@passport/adapters: a full SqliteReplayStore read as unavailable).
 */
import { buildHolaLine, createHolaVerifier, createNobleSigner, encodeHex, systemClock } from '@passport/core';
import { createNodeVerifier } from '@passport/core/node';
import { MemoryChainReader } from '@passport/core/memory';
import { type ReplayStore } from '@passport/core/ports';

/** A PassportError as another copy of the package makes it: same brand, another class. */
class OtherCopyPassportError extends Error {
  override readonly name = 'PassportError';
  constructor(
    readonly code: string,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(code);
  }
}
Object.defineProperty(OtherCopyPassportError.prototype, Symbol.for('@passport/core.PassportError'), {
  value: true,
});

it.each(['REPLAY_STORE_FULL', 'REPLAY_QUOTA_EXCEEDED'])(
  '%s from another copy of the core is passed on',
  async (code) => {
    const signer = createNobleSigner(new Uint8Array(32).fill(7));
    const chain = new MemoryChainReader({
      contractId: 'c.near',
      passports: [
        {
          tokenId: 'bjbvcjzqbdsj',
          ownerId: encodeHex(signer.publicKey),
          metadata: {},
          contractId: 'c.near',
          revoked: false,
        },
      ],
      accounts: {},
    });
    const replay: ReplayStore = {
      recordIfAbsent: () => Promise.reject(new OtherCopyPassportError(code)),
    };
    const verifier = createHolaVerifier({
      chain,
      replay,
      clock: systemClock,
      verifier: createNodeVerifier(),
      serviceHost: 'api.example.com',
    });
    const hola = buildHolaLine({
      senderTokenId: 'bjbvcjzqbdsj',
      timestamp: new Date().toISOString(),
      nonceHex: 'ABCDEF0123456789ABCDEF0123456789',
      serviceHost: 'api.example.com',
      signer,
    });
    await expect(verifier.verify({ hola })).rejects.toMatchObject({ code });
  },
);
