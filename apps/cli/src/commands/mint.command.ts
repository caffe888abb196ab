/**
 * `passport mint`: adds a passport to the local JSON ledger (resolutions §8) with the ledger's locked,
 * atomic writer, signed into the family with the family-root key (FAMILY_CREDENTIALS_FILE). The
 * running API notices the change on disk; no restart. Prints the new token id.
 */
import { parseArgs } from 'node:util';
import {
  cryptoRandomInt,
  isNearAccountId,
  isTokenId,
  parseServiceProviderId,
  randomFaceTokenId,
  signFamilyMetadata,
  type PassportMetadata,
} from '@passport/core';
import { createNodeSigner } from '@passport/core/node';
import { readLedgerFile, updateLedgerFile } from '../../../api/src/chain/ledger/ledger-file.js';
import { CliError, output, parseOrFail, readCredentials, type CliCommand } from '../cli-context.js';

const HELP = `Usage: passport mint [--key <owner.json> | --owner <account>] [options]

Adds a passport to the local ledger, signed into the development family.
  --ledger <file>          ledger file [LEDGER_FILE or ./data/ledger.json]
  --family-key <file>      family-root credentials [FAMILY_CREDENTIALS_FILE or ./data/keys/family-root.json]
  --key <file>             the owner's credentials (the owner is its account)
  --owner <account>        owner account id (instead of --key)
  --token-id <id>          12 lowercase letters [a random face id with a valid checksum]
  --api-url <url>          subjectuniqueidentifier_url [PUBLIC_BASE_URL or http://localhost:3000]
  --not-before <iso>       start of validity (empty: unbounded)
  --not-after <iso>        end of validity (empty: unbounded)
  --max-requests <n>       requests per window for JWT routes (0: unlimited)
  --maxrq-window <s>       window in seconds
  --dn <text>              userselected_dn, e.g. "NNSWF=Ada,NSWF=Agent,Creature=robot"
  --webhook-url <url>      webhook base URL
  --admin-route <path[=rate]>  grant a privileged route (repeatable) -> permissioned_routes
  --json                   print JSON`;

export const mintCommand: CliCommand = {
  name: 'mint',
  summary: 'add a passport to the local ledger, signed into the family',
  help: HELP,
  async run(args, io) {
    const { values } = parseOrFail(() =>
      parseArgs({
        args,
        strict: true,
        allowPositionals: false,
        options: {
          ledger: { type: 'string' },
          'family-key': { type: 'string' },
          key: { type: 'string' },
          owner: { type: 'string' },
          'token-id': { type: 'string' },
          'api-url': { type: 'string' },
          'not-before': { type: 'string' },
          'not-after': { type: 'string' },
          'max-requests': { type: 'string' },
          'maxrq-window': { type: 'string' },
          dn: { type: 'string' },
          'webhook-url': { type: 'string' },
          'admin-route': { type: 'string', multiple: true },
          json: { type: 'boolean' },
        },
      }),
    );
    const dataDir = io.env.DATA_DIR ?? './data';
    const ledgerFile = values.ledger ?? io.env.LEDGER_FILE ?? `${dataDir}/ledger.json`;
    const familyFile =
      values['family-key'] ?? io.env.FAMILY_CREDENTIALS_FILE ?? `${dataDir}/keys/family-root.json`;
    if (values.key && values.owner) throw new CliError('give --key or --owner, not both');
    const owner = values.owner ?? (values.key ? (await readCredentials(values.key)).accountId : undefined);
    if (!owner) throw new CliError('--key <owner.json> or --owner <account> is required');
    if (!isNearAccountId(owner)) throw new CliError(`--owner "${owner}" is not a NEAR account id`);
    const tokenId = values['token-id'] ?? randomFaceTokenId(cryptoRandomInt);
    if (!isTokenId(tokenId)) throw new CliError(`--token-id must be 12 lowercase letters (got "${tokenId}")`);
    for (const flag of ['not-before', 'not-after'] as const) {
      const v = values[flag];
      if (v !== undefined && v !== '' && Number.isNaN(Date.parse(v)))
        throw new CliError(`--${flag} must be an ISO 8601 date-time (got "${v}")`);
    }
    for (const flag of ['max-requests', 'maxrq-window'] as const) {
      const v = values[flag];
      if (v !== undefined && !/^\d{1,9}$/.test(v))
        throw new CliError(`--${flag} must be a non-negative integer (got "${v}")`);
    }
    const apiBase = (values['api-url'] ?? io.env.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(
      /\/+$/,
      '',
    );

    const family = await readCredentials(familyFile, '--family-key');
    const ledger = await readLedgerFile(ledgerFile).catch((error: Error) => {
      throw new CliError(error.message);
    });
    // The family root is the ledger's bc=…;sc=…;id=… passport owned by the family key.
    const root = ledger.passports.find(
      (p) => p.owner_id === family.accountId && parseServiceProviderId(p.token_id) !== null,
    );
    if (!root) throw new CliError(`${ledgerFile} has no family-root passport owned by ${family.accountId}`);

    // The issuer's way: the token id is signed from the record, not carried in the metadata.
    const metadata: PassportMetadata = {
      serviceprovider_id: root.token_id,
      subjectuniqueidentifier_url: apiBase,
    };
    if (values['not-before'] !== undefined) metadata.not_before = values['not-before'];
    if (values['not-after'] !== undefined) metadata.not_after = values['not-after'];
    if (values['max-requests'] !== undefined) metadata.max_requests = values['max-requests'];
    if (values['maxrq-window'] !== undefined) metadata.maxrq_window = values['maxrq-window'];
    if (values.dn !== undefined) metadata.userselected_dn = values.dn;
    if (values['webhook-url'] !== undefined) metadata.webhook_url = values['webhook-url'];
    if (values['admin-route']?.length) {
      const methods: Record<string, string> = {};
      for (const entry of values['admin-route']) {
        const [path, rate] = entry.split('=', 2);
        if (!path.startsWith('/'))
          throw new CliError(`--admin-route must be an exact path starting with / (got "${entry}")`);
        methods[path] = rate ?? '*';
      }
      metadata.permissioned_routes = JSON.stringify({ entities: { methods } });
    }
    metadata.serviceprovider_signature = signFamilyMetadata(metadata, tokenId, createNodeSigner(family.secretSeed));

    await updateLedgerFile(ledgerFile, (doc) => {
      if (doc.passports.some((p) => p.token_id === tokenId))
        throw new CliError(`${tokenId} already exists in ${ledgerFile}`);
      return {
        ...doc,
        passports: [
          ...doc.passports,
          { token_id: tokenId, owner_id: owner, metadata: metadata as Record<string, string> },
        ],
      };
    });
    output(io, !!values.json, { tokenId, ownerId: owner, contractId: ledger.contractId, metadata }, tokenId);
  },
};
