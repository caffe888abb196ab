/**
 * Whether the server passport names this deployment as its home: its `subjectuniqueidentifier_url`
 * against PUBLIC_BASE_URL, compared as login compares a passport's home (`sameApiUrl`). A development
 * server restarted on another PORT keeps the first start's URL in the ledger's server passport,
 * `passport mint` without --api copies it into each new passport, and every such login is refused as
 * foreign (401 LOGIN_MODE_POLICY_REJECTED_FOREIGN_BY_PARTNER). So the start warns (one line) and health
 * is degraded while the URLs differ.
 *
 * Not a reason to refuse the start (ledger or NEAR) nor logins: verify, DIDs and passports minted for
 * the current URL keep working, and the fix is the operator's choice (README, "First start").
 */
import { type ChainReader, type PassportMetadata } from '@passport/core';
import { sameApiUrl } from '@passport/core/login';
import { type ServerIdentity } from '../infrastructure/server-identity.js';

export interface ServerUrlMismatch {
  readonly publicBaseUrl: string;
  readonly serverPassportUrl: string;
}

export class ServerUrlCheck {
  constructor(
    private readonly server: Pick<ServerIdentity, 'tokenId'>,
    private readonly chain: ChainReader,
    private readonly publicBaseUrl: string,
  ) {}

  /** The two URLs when the server passport (read now, through the cache) names another home; else undefined. */
  async mismatch(): Promise<ServerUrlMismatch | undefined> {
    const passport = await this.chain.getPassport(this.server.tokenId);
    return passport ? serverUrlMismatch(passport.metadata, this.publicBaseUrl) : undefined;
  }
}

/** A passport naming no home is no mismatch (login treats its passports as local). */
export function serverUrlMismatch(
  metadata: Pick<PassportMetadata, 'subjectuniqueidentifier_url'>,
  publicBaseUrl: string,
): ServerUrlMismatch | undefined {
  const home = metadata.subjectuniqueidentifier_url;
  if (typeof home !== 'string' || home.trim() === '' || sameApiUrl(home, publicBaseUrl)) return undefined;
  return { publicBaseUrl, serverPassportUrl: home };
}

/** The start's warning: one line saying what breaks and what to do, for the chain in use. */
export function serverUrlWarning(
  chain: 'ledger' | 'near',
  { publicBaseUrl, serverPassportUrl }: ServerUrlMismatch,
): string {
  const fix =
    chain === 'ledger'
      ? `set PUBLIC_BASE_URL=${serverPassportUrl} (PORT may differ), or start a new development family with another DATA_DIR`
      : `set PUBLIC_BASE_URL=${serverPassportUrl}, or give the server a passport whose subjectuniqueidentifier_url is ${publicBaseUrl}`;
  return (
    `PUBLIC_BASE_URL ${publicBaseUrl} is not the server passport's subjectuniqueidentifier_url ${JSON.stringify(serverPassportUrl)}: ` +
    `passports naming that URL (what passport mint copies without --api) are refused at login as foreign ` +
    `(LOGIN_MODE_POLICY_REJECTED_FOREIGN_BY_PARTNER), and /health is degraded; ${fix}`
  );
}
