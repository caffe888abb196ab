/**
 * `passport logout`: ends the session of a token (`POST /api/logout`, docs/protocol.md §3), from
 * `--jwt-file` (as `login --save` wrote it), `--jwt` or PASSPORT_JWT. The body is `{reason}` or `{}`:
 * logout closes the session of the token that calls it and names no other. The token file is left as
 * it is (the termination token the answer carries in `New-Token` is not saved): every token of the
 * session is refused from now on, so remove the file or log in again into it.
 */
import { printableText } from '@passport/core/codecs';
import {
  ApiError,
  apiUrl,
  callApi,
  CliError,
  output,
  parseCommandLine,
  type CliCommand,
} from '../cli-context.js';
import { readJwt } from '../jwt-source.js';

/** What the server keeps of a reason: 1-100 characters of printable ASCII (any other is not kept). */
const REASON_PATTERN = /^[\x20-\x7e]{1,100}$/;

export const logoutCommand: CliCommand = {
  name: 'logout',
  summary: "end a JWT's session (every token of it is refused from then on)",
  help: `Usage: passport logout --api <url> (--jwt <token> | --jwt-file <file>) [--reason <text>] [--json]

Closes the session of the token with POST /api/logout and prints "logged out: session <sessionId>
closed". The --jwt-file is left as it is (its token no longer works): remove it or log in again.
A session closed already (an earlier logout, a revocation) is refused by the API (exit 2).
  --api <url>        the API [PASSPORT_API_URL]
  --jwt <token>      the JWT [PASSPORT_JWT when neither --jwt nor --jwt-file is given]
  --jwt-file <file>  read the JWT from this file (login --save's)
  --reason <text>    kept with the closed session (1-100 printable ASCII characters)`,
  async run(args, io) {
    const { values } = parseCommandLine({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        api: { type: 'string' },
        jwt: { type: 'string' },
        'jwt-file': { type: 'string' },
        reason: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    // The server would drop a reason it does not keep without a word; said here instead.
    if (values.reason !== undefined && !REASON_PATTERN.test(values.reason))
      throw new CliError('--reason must be 1-100 printable ASCII characters');
    const api = apiUrl(values.api, io);
    const jwt = await readJwt(values.jwt, values['jwt-file'], io);
    let body: Record<string, unknown>;
    try {
      body = await callApi(io, `${api}/api/logout`, {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
        body: JSON.stringify(values.reason === undefined ? {} : { reason: values.reason }),
      });
    } catch (error) {
      throw withClosedHint(error);
    }
    const sessionId = typeof body.sessionId === 'string' ? printableText(body.sessionId, 120) : null;
    if (body.sessionClosed !== true)
      throw new CliError(
        `/api/logout answered without sessionClosed: true${sessionId ? ` (session ${sessionId})` : ''}; the session may still be open`,
      );
    output(io, !!values.json, body, `logged out: session ${sessionId ?? '(unnamed)'} closed`);
  },
};

/** A token whose session is closed already: what that means for the run, after the API's words. */
function withClosedHint(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 401) return error;
  const hint =
    error.details.cause === 'session_closed'
      ? 'its session is closed already (an earlier logout or a revocation): nothing to log out'
      : 'the token is not one of an open session of this API: nothing was logged out';
  return new ApiError(`${error.message}; ${hint}`, error.status, error.code, error.details);
}
