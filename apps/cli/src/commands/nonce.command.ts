/**
 * `passport nonce`: asks the API for a HOLA nonce and timestamp (`GET /api/holanonce16ts`, JWT tier).
 */
import { apiUrl, callApi, output, parseCommandLine, type CliCommand } from '../cli-context.js';
import { bearerIo } from '../jwt-source.js';

export const nonceCommand: CliCommand = {
  name: 'nonce',
  summary: 'get a HOLA nonce and timestamp (needs a JWT)',
  help: `Usage: passport nonce --api <url> (--jwt <token> | --jwt-file <file>) [--json]

Prints "<timestamp> <noncetsHex>" from GET /api/holanonce16ts.`,
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
    const api = apiUrl(values.api, io);
    const { jwt, io: bearer } = await bearerIo(values.jwt, values['jwt-file'], io);
    const body = await callApi(bearer, `${api}/api/holanonce16ts`, {
      headers: { authorization: `Bearer ${jwt}` },
    });
    output(io, !!values.json, body, `${String(body.timestamp)} ${String(body.noncetsHex)}`);
  },
};
