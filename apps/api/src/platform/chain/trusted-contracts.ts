/**
 * The contracts whose passports log in (TRUSTED_CONTRACTS; unset, NEAR_CONTRACT_ID, else the ledger's
 * own contract). A set without the contract of the server's own passport stops the start: the server's
 * family lives on that contract, so every login of it would be 401 SMART_CONTRACT_NOT_TRUSTED (e.g.
 * CHAIN=ledger with NEAR_CONTRACT_ID=other.near would start healthy and refuse every login).
 */
import { type PassportRecord } from '@passport/core';
import { type AppConfig } from '../config/app-config.js';
import { StartupError } from './server-identity.loader.js';

export function resolveTrustedContracts(
  config: Pick<AppConfig, 'trustedContracts' | 'nearContractId'>,
  serverPassport: Pick<PassportRecord, 'contractId'>,
): readonly string[] {
  const trusted = config.trustedContracts;
  if (trusted.length === 0) return [serverPassport.contractId];
  if (trusted.includes(serverPassport.contractId)) return trusted;
  const refused = `every login would be refused (SMART_CONTRACT_NOT_TRUSTED)`;
  // Unset TRUSTED_CONTRACTS takes NEAR_CONTRACT_ID (app-config.ts); only the ledger can differ from it.
  if (trusted.length === 1 && trusted[0] === config.nearContractId)
    throw new StartupError(
      `NEAR_CONTRACT_ID ${config.nearContractId} (the trusted contract when TRUSTED_CONTRACTS is unset or names it alone) is not ${serverPassport.contractId}, the contract of the server's own passport: ${refused}; with CHAIN=ledger leave NEAR_CONTRACT_ID unset, or list ${serverPassport.contractId} in TRUSTED_CONTRACTS`,
    );
  throw new StartupError(
    `TRUSTED_CONTRACTS (${trusted.join(', ')}) does not include ${serverPassport.contractId}, the contract of the server's own passport: ${refused}; add it`,
  );
}
