/**
 * The chain for offline commands (`verify`, `did`): a ledger file or a NEAR RPC, read with the same
 * adapters the API uses, so offline answers equal the API's.
 */
import { type ChainReader } from '@passport/core';
import { CliError, httpUrl } from './cli-context.js';

export interface OfflineChainFlags {
  ledger?: string;
  'near-rpc'?: string;
  contract?: string;
}

/**
 * The chain flags checked without opening anything (usage errors come before any other): one chain,
 * and a NEAR RPC that is an http(s) URL (near-api-js took "not a url" as an unexpected error, exit 1,
 * read as "not verified") with its contract.
 */
export function checkOfflineChainFlags(flags: OfflineChainFlags): void {
  if (flags.ledger && flags['near-rpc']) throw new CliError('give --ledger or --near-rpc, not both');
  if (flags['near-rpc'] !== undefined && !flags.ledger) {
    httpUrl(flags['near-rpc'], '--near-rpc');
    if (!flags.contract) throw new CliError('--contract <id> is required with --near-rpc');
  }
  if (!flags.ledger && !flags['near-rpc'])
    throw new CliError(
      'give --api <url> (or set PASSPORT_API_URL), or --ledger <file> / --near-rpc <url> --contract <id> for an offline check',
    );
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
