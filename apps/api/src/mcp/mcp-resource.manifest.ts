/**
 * The list of documentation resources this service publishes, in the order they are listed (REST
 * `/api/mcp/resources`, the `list_resources` tool and MCP `resources/list` all read this one list).
 * Static documents are markdown files under `apps/api/resources/`; live documents are computed on
 * each read (the OpenAPI document, a DID resolution, the face category table).
 */

export const MARKDOWN = 'text/markdown';
export const JSON_TYPE = 'application/json';

export interface StaticResourceSpec {
  readonly kind: 'file';
  readonly uri: string;
  readonly name: string;
  readonly description: string;
  /** Path under apps/api/resources/. */
  readonly file: string;
}

export interface LiveResourceSpec {
  readonly kind: 'openapi' | 'facial-categories';
  readonly uri: string;
  readonly name: string;
  readonly description: string;
}

/**
 * A live document per passport, read as `<prefix><tokenId>` and listed as the template
 * `<prefix>{tokenId}`. Adding one takes this entry and its reader, under the name `reader`, in
 * `live-documents.ts` (the catalog refuses to start without it).
 */
export interface PerTokenResourceSpec {
  readonly kind: 'per-token';
  /** The template: the prefix followed by `{tokenId}`. */
  readonly uri: `${string}{tokenId}`;
  readonly name: string;
  readonly description: string;
  /** The key of its reader in `LiveDocumentSources.perToken`. */
  readonly reader: string;
  /** `details.reason` of the MCP_RESOURCE_NOT_FOUND answered when the reader finds nothing. */
  readonly notFoundReason: string;
}

export type ResourceSpec = StaticResourceSpec | LiveResourceSpec | PerTokenResourceSpec;

/** The part of a per-token template before `{tokenId}`. */
export const perTokenPrefix = (spec: PerTokenResourceSpec): string => spec.uri.slice(0, -'{tokenId}'.length);

/** The URI prefix of live DID resolutions: `did:resolve:<tokenId>`. */
export const DID_RESOLVE_PREFIX = 'did:resolve:';
export const DID_RESOLVE_TEMPLATE = `${DID_RESOLVE_PREFIX}{tokenId}`;

const doc = (uri: string, file: string, name: string, description: string): StaticResourceSpec => ({
  kind: 'file',
  uri,
  file,
  name,
  description,
});

export const RESOURCE_MANIFEST: readonly ResourceSpec[] = [
  doc(
    'doc:discovery',
    'doc/discovery.md',
    'Discovery',
    'Start here: what this service is, where everything lives, and the first calls to make.',
  ),
  doc(
    'doc:skills',
    'doc/skills.md',
    'Agent skills overview',
    'The tasks an agent can do with this service and which document explains each.',
  ),
  doc(
    'skills:skills',
    'skills/skills.md',
    'Skills (step by step)',
    'Copy-ready procedures: log in, send and verify a HOLA line, resolve a DID, list holders.',
  ),
  {
    kind: 'openapi',
    uri: 'openapi:swagger',
    name: 'OpenAPI document',
    description: 'The live OpenAPI 3 document of this deployment (same as GET /openapi.json).',
  },
  doc(
    'guide:enrollment',
    'guide/enrollment.md',
    'Enrollment guide',
    'How to obtain a passport, store its key and make the first login.',
  ),
  doc(
    'guide:troubleshooting',
    'guide/troubleshooting.md',
    'Troubleshooting',
    'Symptoms, error codes and their fixes.',
  ),
  doc(
    'guide:api',
    'guide/api.md',
    'API guide',
    'Every endpoint grouped by access tier, with request and response shapes.',
  ),
  doc(
    'onboarding:near',
    'onboarding/near.md',
    'NEAR onboarding',
    'Keys, implicit and named accounts, and how passports live on NEAR.',
  ),
  {
    kind: 'per-token',
    uri: DID_RESOLVE_TEMPLATE,
    name: 'DID resolution (template)',
    description:
      'Replace {tokenId} with a 12-letter token id to read the live DID document of that passport.',
    reader: 'did',
    notFoundReason: 'DID_NOT_FOUND',
  },
  {
    kind: 'facial-categories',
    uri: 'token:facial-categories',
    name: 'Facial categories',
    description: 'The table that decodes a 12-letter token id into face categories.',
  },
  doc(
    'doc:reference:login',
    'reference/login.md',
    'Reference: login',
    'Challenge, signed message, request fields, JWT claims and every login error.',
  ),
  doc(
    'doc:reference:hola',
    'reference/hola.md',
    'Reference: HOLA lines',
    'Exact HOLA format, signed bytes, checksum, verification and its failure reasons.',
  ),
  doc(
    'doc:reference:subagents',
    'reference/subagents.md',
    'Reference: subagents',
    'Delegated signers: the subagent HOLA form and /api/isauthorizedsigner.',
  ),
  doc(
    'doc:reference:errors',
    'reference/errors.md',
    'Reference: errors',
    'The error envelope, the JSON-RPC exceptions and the codes by endpoint.',
  ),
  doc(
    'doc:reference:rate-limits',
    'reference/rate-limits.md',
    'Reference: rate limits',
    'Public, MCP and per-passport limits and how 429 is answered.',
  ),
  doc(
    'doc:reference:did',
    'reference/did.md',
    'Reference: DID method',
    'The did:passport method, its document and resolution errors.',
  ),
  doc(
    'doc:reference:mcp',
    'reference/mcp.md',
    'Reference: MCP transport',
    'Sessions, tools, resources and the transport errors of /mcp.',
  ),
];
