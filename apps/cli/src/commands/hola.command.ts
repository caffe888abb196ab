/**
 * `passport hola`: prints a signed HOLA line (docs/protocol.md §2), standard or subagent form, built by the
 * core's `buildHolaLine` with the key held here. The timestamp and nonce come from the API
 * (`GET /api/holanonce16ts`, with a JWT) or, for offline use, from the clock and 16 random bytes.
 */
import { randomBytes } from 'node:crypto';
import { buildHolaLine, isTokenId } from '@passport/core';
import { isServiceHostMarker } from '@passport/core/hola';
import { createNodeSigner } from '@passport/core/node';
import {
  apiUrl,
  callApi,
  checkDelegateId,
  CliError,
  output,
  parseCommandLine,
  readCredentials,
  refuseEmptyFlags,
  refuseTimeAhead,
  type CliCommand,
} from '../cli-context.js';
import { bearerIo, checkJwtFlags } from '../jwt-source.js';
import { fetchHolaNonce } from './nonce.command.js';

export const holaCommand: CliCommand = {
  name: 'hola',
  summary: 'print a signed HOLA line (standard or subagent)',
  help: `Usage: passport hola --key <file> --passport <tokenId> (--host <host[:port]> | --api <url>) [options]

  --to <tokenId|MUNDO>     recipient [MUNDO]
  --api <url>              the host marker the server announces (GET /, hola.serviceHost; a warning
                           when it is not the URL's host), and timestamp and nonce from
                           GET /api/holanonce16ts (needs --jwt/--jwt-file) [PASSPORT_API_URL
                           when --host is not given]
  --host <host[:port]>     the verifying deployment's SERVICE_HOST (offline: local time and a random nonce)
  --timestamp <iso>        use this timestamp (with --nonce)
  --nonce <hex>            use this nonce (32 hex characters)
  --jwt <token>            the JWT for GET /api/holanonce16ts with --api [PASSPORT_JWT]
  --jwt-file <file>        read the JWT from this file (rewritten with a renewed token)
  --subagent <delegateId>  subagent form: --passport is the issuer, --key the subagent's own key
  --json                   print {hola, timestamp, nonceHex, serviceHost}
A flag the line would not use is refused (exit 2): --jwt/--jwt-file together, offline (--host
without --api) or with --timestamp/--nonce; --api with --host, --timestamp and --nonce.`,
  async run(args, io) {
    const { values } = parseCommandLine({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        key: { type: 'string' },
        passport: { type: 'string' },
        to: { type: 'string' },
        api: { type: 'string' },
        host: { type: 'string' },
        jwt: { type: 'string' },
        'jwt-file': { type: 'string' },
        timestamp: { type: 'string' },
        nonce: { type: 'string' },
        subagent: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    // Before anything is read or asked: an empty --api is no absence (PASSPORT_API_URL), nor --host.
    refuseEmptyFlags(values, ['key', 'passport', 'api', 'host', 'timestamp']);
    const credentials = await readCredentials(values.key, '--key', io.stderr);
    if (!values.passport) throw new CliError('--passport <tokenId> (12 lowercase letters) is required');
    // Said as login says it: "is required" misled a user who had given an 11-letter id.
    if (!isTokenId(values.passport))
      throw new CliError(`--passport must be 12 lowercase letters (got "${values.passport}")`);
    const recipient = (values.to ?? 'MUNDO').toUpperCase();
    if (recipient !== 'MUNDO' && !isTokenId(recipient.toLowerCase()))
      throw new CliError('--to must be MUNDO or a 12-letter token id');
    if (values.subagent !== undefined) checkDelegateId(values.subagent, '--subagent');

    let host = values.host;
    let timestamp = values.timestamp;
    let nonceHex = values.nonce?.toUpperCase();
    if (nonceHex !== undefined && !/^[0-9A-F]{32}$/.test(nonceHex))
      throw new CliError(`--nonce must be 32 hex characters (got ${nonceHex.length} characters)`);
    if ((timestamp === undefined) !== (nonceHex === undefined))
      throw new CliError('give --timestamp and --nonce together');
    // PASSPORT_API_URL as the other commands read it, unless --host asks for an offline line.
    const apiSource = values.api ?? (values.host === undefined ? io.env.PASSPORT_API_URL : undefined);
    // A flag given is used or refused, before any request (a probe: these were dropped without a word).
    checkJwtFlags(values.jwt, values['jwt-file']);
    const jwtFlag =
      values.jwt !== undefined ? '--jwt' : values['jwt-file'] !== undefined ? '--jwt-file' : null;
    if (jwtFlag !== null && values.api === undefined && values.host !== undefined)
      throw new CliError(
        `${jwtFlag} goes with --api, whose nonce it asks for: an offline line (--host) asks the API for nothing`,
      );
    if (jwtFlag !== null && timestamp !== undefined)
      throw new CliError(
        `${jwtFlag} goes with a nonce asked of the API: with --timestamp and --nonce none is asked`,
      );
    if (values.api !== undefined && host !== undefined && timestamp !== undefined)
      throw new CliError(
        '--api asks the server for nothing when --host, --timestamp and --nonce are given: leave it out',
      );
    if (apiSource) {
      const api = apiUrl(apiSource, io);
      // The server announces the host marker its verifier expects (SERVICE_HOST, or its public URL's
      // host); behind a proxy or another port that differs from the host of the URL we reach it by.
      // That is the server's word: a line signed for another host verifies there only, so a marker
      // other than the URL's is said on stderr (a server can have it sign for a host of its choice).
      if (host === undefined) {
        host = await announcedServiceHost(io, api);
        const urlHost = new URL(api).host;
        if (host.toLowerCase() !== urlHost.toLowerCase())
          io.stderr(
            `warning: ${urlHost} announces the host marker ${host}: the line is signed for ${host} (give --host to choose it)\n`,
          );
      }
      if (timestamp === undefined) {
        const { jwt, io: bearer } = await bearerIo(values.jwt, values['jwt-file'], io, api);
        ({ timestamp, noncetsHex: nonceHex } = await fetchHolaNonce(bearer, api, jwt));
        refuseTimeAhead('/api/holanonce16ts', timestamp);
      }
    }
    if (!host)
      throw new CliError('--host <host[:port]> or --api <url> is required (or set PASSPORT_API_URL)');
    timestamp ??= new Date().toISOString();
    nonceHex ??= randomBytes(16).toString('hex').toUpperCase();

    let line: string;
    try {
      line = buildHolaLine({
        recipient,
        senderTokenId: values.passport,
        timestamp,
        nonceHex,
        serviceHost: host,
        signer: createNodeSigner(credentials.secretSeed),
        subagent: values.subagent !== undefined ? { delegateId: values.subagent } : undefined,
      });
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    output(io, !!values.json, { hola: line, timestamp, nonceHex, serviceHost: host }, line);
  },
};

/** `hola.serviceHost` from `GET /` of the server; the URL's own host for a server that announces none. */
async function announcedServiceHost(io: Parameters<typeof callApi>[0], api: string): Promise<string> {
  const root = await callApi(io, `${api}/`);
  const announced = (root.hola as { serviceHost?: unknown } | undefined)?.serviceHost;
  return isServiceHostMarker(announced) ? announced : new URL(api).host;
}
