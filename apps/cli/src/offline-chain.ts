/**
 * The chain for offline commands (`verify`, `did`): a ledger file or a NEAR RPC, read with the same
 * adapters the API uses, so offline answers equal the API's.
 */
import { type ChainReader } from '@passport/core';
import { CliError, httpUrl, refuseEmptyFlags } from './cli-context.js';

export interface OfflineChainFlags {
  ledger?: string;
  'near-rpc'?: string;
  contract?: string;
}

/**
 * The chain flags checked without opening anything (usage errors come before any other): one chain,
 * and a NEAR RPC that is an http(s) URL (near-api-js took "not a url" as an unexpected error, exit 1,
 * read as "not verified") with its contract. A flag given is used or refused, never dropped (a probe:
 * `--ledger L --contract C` read the ledger's own contract without a word, and an empty `--ledger ""`,
 * an unset variable, sent the run to PASSPORT_API_URL).
 */
export function checkOfflineChainFlags(flags: OfflineChainFlags): void {
  refuseEmptyFlags({ ...flags }, ['ledger', 'near-rpc', 'contract']);
  if (flags.ledger !== undefined && flags['near-rpc'] !== undefined)
    throw new CliError('give --ledger or --near-rpc, not both');
  if (flags.contract !== undefined && flags['near-rpc'] === undefined)
    throw new CliError(
      flags.ledger !== undefined
        ? '--contract goes with --near-rpc, not with --ledger: a ledger file names its own contract'
        : '--contract goes with --near-rpc <url>',
    );
  if (flags['near-rpc'] !== undefined) {
    httpUrl(flags['near-rpc'], '--near-rpc');
    if (flags.contract === undefined) throw new CliError('--contract <id> is required with --near-rpc');
  }
  if (flags.ledger === undefined && flags['near-rpc'] === undefined)
    throw new CliError(
      'give --api <url> (or set PASSPORT_API_URL), or --ledger <file> / --near-rpc <url> --contract <id> for an offline check',
    );
}

/** Whether any chain flag was given (an empty one too: it is refused, not taken for none). */
export function hasOfflineChainFlag(flags: OfflineChainFlags): boolean {
  return flags.ledger !== undefined || flags['near-rpc'] !== undefined || flags.contract !== undefined;
}

export async function openOfflineChain(
  flags: OfflineChainFlags,
): Promise<{ chain: ChainReader; close(): void }> {
  checkOfflineChainFlags(flags);
  if (flags.ledger) {
    const { LedgerChainReader } = await import('@passport/adapters/ledger');
    const reader = await LedgerChainReader.open(flags.ledger, { watch: false }).catch((error: Error) => {
      throw new CliError(error.message);
    });
    return { chain: reader, close: () => reader.close() };
  }
  // Loaded here only: near-api-js is large, and the commands that never read NEAR must not load it.
  const { NearChainReader } = await import('@passport/adapters/near');
  return {
    chain: new NearChainReader({
      rpcUrl: httpUrl(flags['near-rpc']!, '--near-rpc'),
      contractId: flags.contract!,
    }),
    close: () => undefined,
  };
}
