/**
 * `passport delegate`: the passport owner signs a delegation of a subagent key (docs/protocol.md §4, §6) with
 * the core's `signDelegation`; prints the body for `POST /api/isauthorizedsigner`.
 */
import { isTokenId, signDelegation } from '@passport/core';
import { createNodeSigner } from '@passport/core/node';
import {
  checkDelegateId,
  CliError,
  output,
  parseCommandLine,
  readCredentials,
  refuseEmptyFlags,
  type CliCommand,
} from '../cli-context.js';

export const delegateCommand: CliCommand = {
  name: 'delegate',
  summary: 'sign a delegation of a subagent key',
  help: `Usage: passport delegate --key <owner.json> --passport <tokenId> --delegate-id <id> --subagent-key <subagent.json> [--timestamp <unix s>] [--json]

Prints the signed body for POST /api/isauthorizedsigner (the owner signs
"tokenId:delegateId:unixTimestamp:publicKey").`,
  async run(args, io) {
    const { values } = parseCommandLine({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        key: { type: 'string' },
        passport: { type: 'string' },
        'delegate-id': { type: 'string' },
        'subagent-key': { type: 'string' },
        timestamp: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    refuseEmptyFlags(values, ['key', 'passport', 'subagent-key']);
    const owner = await readCredentials(values.key, '--key', io.stderr);
    if (!values.passport) throw new CliError('--passport <tokenId> (12 lowercase letters) is required');
    // Said as login says it: "is required" misled a user who had given an 11-letter id.
    if (!isTokenId(values.passport))
      throw new CliError(`--passport must be 12 lowercase letters (got "${values.passport}")`);
    if (values['delegate-id'] === undefined) throw new CliError('--delegate-id <id> is required');
    // The id the subagent's lines will carry: what `hola --subagent` refuses is refused here too.
    checkDelegateId(values['delegate-id'], '--delegate-id');
    if (!values['subagent-key']) throw new CliError('--subagent-key <subagent.json> is required');
    const subagentKey = (await readCredentials(values['subagent-key'], '--subagent-key', io.stderr))
      .publicKey;
    const ts = values.timestamp ?? String(Math.floor(Date.now() / 1000));
    if (!/^\d{1,12}$/.test(ts)) throw new CliError('--timestamp must be Unix seconds');
    let body;
    try {
      body = signDelegation({
        tokenId: values.passport,
        delegateId: values['delegate-id'],
        unixTimestamp: Number(ts),
        delegatePublicKey: subagentKey,
        ownerSigner: createNodeSigner(owner.secretSeed),
      });
    } catch (error) {
      throw new CliError((error as Error & { code?: string }).code ?? (error as Error).message);
    }
    output(io, true, body, '');
    void values.json;
  },
};
