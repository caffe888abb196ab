/**
 * `passport nonce`: asks the API for a HOLA nonce and timestamp (`GET /api/holanonce16ts`, JWT tier).
 */
import { parseHolaTimestamp } from '@passport/core/hola';
import {
  apiUrl,
  callApi,
  CliError,
  output,
  parseCommandLine,
  type CliCommand,
  type CliIo,
} from '../cli-context.js';
import { bearerIo, checkJwtFlags } from '../jwt-source.js';

export const nonceCommand: CliCommand = {
  name: 'nonce',
  summary: 'get a HOLA nonce and timestamp (needs a JWT)',
  help: `Usage: passport nonce --api <url> (--jwt <token> | --jwt-file <file>) [--json]

Prints "<timestamp> <noncetsHex>" from GET /api/holanonce16ts.
  --api <url>        the API [PASSPORT_API_URL]
  --jwt <token>      the JWT [PASSPORT_JWT when neither --jwt nor --jwt-file is given]
  --jwt-file <file>  read the JWT from this file (rewritten with a renewed token)`,
  async run(args, io) {
    const { values } = parseCommandLine({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        api: { type: 'string' },
        jwt: { type: 'string' },
        'jwt-file': { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    checkJwtFlags(values.jwt, values['jwt-file']);
    const api = apiUrl(values.api, io);
    const { jwt, io: bearer } = await bearerIo(values.jwt, values['jwt-file'], io, api);
    const { body, timestamp, noncetsHex } = await fetchHolaNonce(bearer, api, jwt);
    output(io, !!values.json, body, `${timestamp} ${noncetsHex}`);
  },
};

/**
 * `GET /api/holanonce16ts`, its two fields checked: they are printed and signed as they are, and a
 * server may send escape sequences and newlines in them (printed raw), or nothing ("undefined").
 */
export async function fetchHolaNonce(
  io: CliIo,
  api: string,
  jwt: string,
): Promise<{ body: Record<string, unknown>; timestamp: string; noncetsHex: string }> {
  const body = await callApi(io, `${api}/api/holanonce16ts`, {
    headers: { authorization: `Bearer ${jwt}` },
  });
  const { timestamp, noncetsHex } = body;
  if (typeof timestamp !== 'string' || parseHolaTimestamp(timestamp) === null)
    throw new CliError('/api/holanonce16ts answered without an ISO 8601 timestamp');
  if (typeof noncetsHex !== 'string' || !/^[0-9A-F]{32}$/i.test(noncetsHex))
    throw new CliError('/api/holanonce16ts answered without a noncetsHex of 32 hex characters');
  return { body, timestamp, noncetsHex };
}
