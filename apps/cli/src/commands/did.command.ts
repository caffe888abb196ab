/**
 * `passport did`: resolves `did:passport:<tokenId>` through the API (`GET /.well-known/did/resolve`)
 * or offline from a ledger file or NEAR RPC with the core's DID document builder.
 */
import { buildDidDocument, ChainUnavailableError, parseDid, PassportError } from '@passport/core';
import { resolveOwnerKeys } from '@passport/core/passport';
import {
  apiUrl,
  baseUrl,
  callApi,
  CliError,
  output,
  parseCommandLine,
  type CliCommand,
  refuseApiWithOfflineFlags,
} from '../cli-context.js';
import { hasOfflineChainFlag, openOfflineChain } from '../offline-chain.js';

export const didCommand: CliCommand = {
  name: 'did',
  summary: 'resolve a did:passport DID (API or offline)',
  help: `Usage: passport did <did:passport:<tokenId> | tokenId> (--api <url> | --ledger <file> | --near-rpc <url> --contract <id>) [--public-url <url>] [--json]

Prints the DID document.
  --api <url>            resolve it at the API [PASSPORT_API_URL when no offline flag is given]
  --ledger <file>, --near-rpc <url> --contract <id>
                         build it offline from a ledger file or a NEAR RPC
  --public-url <url>     offline: the service named in the document [PUBLIC_BASE_URL, else the
                         passport's home URL]; refused at the API, whose document names the server
--contract goes with --near-rpc only (a ledger file names its own contract); a flag that does not
apply, or an empty one, is refused (exit 2). Without --api and the offline flags, the API is
PASSPORT_API_URL.`,
  async run(args, io) {
    const { values, positionals } = parseCommandLine({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        api: { type: 'string' },
        ledger: { type: 'string' },
        'near-rpc': { type: 'string' },
        contract: { type: 'string' },
        'public-url': { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    if (positionals.length !== 1) throw new CliError('give exactly one DID or token id');
    refuseApiWithOfflineFlags(values);
    // A bare token id is looked up in lowercase, as everywhere (HOLA lines carry it uppercase); a DID is
    // taken as written, and one in another case is refused naming its canonical form.
    const input = positionals[0].startsWith('did:')
      ? positionals[0]
      : `did:passport:${positionals[0].toLowerCase()}`;
    let parsed;
    try {
      parsed = parseDid(input);
    } catch (error) {
      const canonical = error instanceof PassportError ? error.details?.canonical : undefined;
      throw new CliError(
        `invalid DID "${input}" (${error instanceof PassportError ? String(error.details?.reason ?? error.code) : 'invalid'})${typeof canonical === 'string' ? `: did you mean ${canonical}?` : ''}`,
      );
    }
    let document: unknown;
    // A flag given is used or refused (a probe: --public-url and --contract were dropped in API runs).
    if (values.api !== undefined || (!hasOfflineChainFlag(values) && io.env.PASSPORT_API_URL)) {
      if (values['public-url'] !== undefined)
        throw new CliError(
          `--public-url names the service in an offline document (--ledger, --near-rpc); the API's document names the server's own PUBLIC_BASE_URL (this run would resolve at ${values.api !== undefined ? '--api' : 'PASSPORT_API_URL'})`,
        );
      const api = apiUrl(values.api, io);
      document = await callApi(io, `${api}/.well-known/did/resolve?did=${encodeURIComponent(parsed.did)}`);
    } else {
      // Checked as the server checks PUBLIC_BASE_URL (an empty variable is unset): javascript:x and
      // http://a/# must not become the document's serviceEndpoint. Only here, where it is used (a stray
      // variable must not break `did --api`).
      const envUrl = io.env.PUBLIC_BASE_URL?.trim() || undefined;
      const publicUrl =
        values['public-url'] !== undefined
          ? baseUrl(values['public-url'], '--public-url')
          : envUrl && baseUrl(envUrl, 'PUBLIC_BASE_URL');
      const { chain, close } = await openOfflineChain(values);
      try {
        // A chain that cannot be read is an error of the run (exit 2) with one line, as in API mode.
        const fromChain = <T>(read: Promise<T>): Promise<T> =>
          read.catch((error: unknown) => {
            if (error instanceof ChainUnavailableError)
              throw new CliError(`the chain could not be read (${error.reason})`);
            throw error;
          });
        const record = await fromChain(chain.getPassport(parsed.tokenId));
        if (!record) throw new CliError(`no passport ${parsed.tokenId} on ${chain.contractId}`);
        // An owner without an Ed25519 key gets the document the API gives: no verification method.
        const keys = await fromChain(resolveOwnerKeys(chain, record.ownerId));
        // The passport's own home URL is the holder's text: one that is no base URL (a query, say) is
        // said so, with what to do, rather than an unexpected error naming publicBaseUrl (a review).
        const home = record.metadata.subjectuniqueidentifier_url;
        const publicBaseUrl =
          publicUrl ??
          (typeof home !== 'string' || home.trim() === ''
            ? 'http://localhost:3000'
            : baseUrl(home, "the passport's subjectuniqueidentifier_url (give --public-url)"));
        document = buildDidDocument(record, keys, { publicBaseUrl });
      } finally {
        close();
      }
    }
    output(io, true, document, '');
    // The flag sits deep in the JSON; a person reading the document, or a script that keeps only its
    // keys, should not have to find it (a probe: a revoked passport's DID printed with no sign of it).
    if ((document as { deactivated?: unknown } | null)?.deactivated === true)
      io.stderr(
        `warning: ${parsed.did} is deactivated (the passport is revoked): its document lists no key, and it proves nothing new\n`,
      );
    void values.json;
  },
};
