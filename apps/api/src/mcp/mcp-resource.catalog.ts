/**
 * The one registry of documentation resources behind every MCP surface: REST `/api/mcp/*`, the
 * `list_resources` / `get_resource` tools and MCP's native `resources/list` / `resources/read`.
 * Markdown files are read once at start (a missing file stops the start rather than serving a hole);
 * live documents come from the sources the module wires in (OpenAPI, DID builder, face table).
 */
import { readFileSync } from 'node:fs';
import { PassportError } from '@passport/core';
import {
  JSON_TYPE,
  MARKDOWN,
  perTokenPrefix,
  RESOURCE_MANIFEST,
  type PerTokenResourceSpec,
  type ResourceSpec,
} from './mcp-resource.manifest.js';
import { printableText } from '@passport/core/codecs';
import { AppError } from '../platform/http/app.error.js';
import { httpStatusOfError } from '../platform/http/http-status.table.js';

/** One item of the registry as listed (spec: MCP resources). */
export interface McpResourceItem {
  readonly uri: string;
  readonly name: string;
  /** Media type of the content. */
  readonly type: string;
  readonly description: string;
}

/**
 * A resource read: the text as served over MCP, plus for JSON resources the value and its compact JSON
 * (what REST sends), each serialised once per document.
 */
export interface McpResourceContent {
  readonly uri: string;
  readonly type: string;
  readonly text: string;
  readonly json?: unknown;
  readonly jsonBytes?: Buffer;
}

/** The live documents, provided by the parts of the app that own them. */
export interface LiveDocumentSources {
  /** The OpenAPI document served at /openapi.json. */
  openApiDocument(): unknown;
  /** The same document as JSON bytes, serialised once (what /openapi.json sends). */
  openApiJson(): Buffer;
  /** The face category table (token:facial-categories). */
  facialCategories(): unknown;
  /**
   * The per-token documents by reader name (`PerTokenResourceSpec.reader`; `did`: a passport's DID
   * document): null when the token id is malformed or no passport exists.
   */
  readonly perToken: Readonly<Record<string, (tokenId: string) => Promise<unknown | null>>>;
}

export interface ResourcePage {
  readonly resources: McpResourceItem[];
  readonly nextCursor?: string;
}

/** Folder of the markdown documents: apps/api/resources (same relative place from src/ and dist/). */
export const RESOURCES_DIR = new URL('../../resources/', import.meta.url);

const typeOf = (spec: ResourceSpec): string => (spec.kind === 'file' ? MARKDOWN : JSON_TYPE);

export class McpResourceCatalog {
  private readonly markdown = new Map<string, string>();
  /** The fixed JSON documents as last read (OpenAPI, face categories), by URI. */
  private readonly serialised = new Map<string, McpResourceContent>();
  private readonly items: McpResourceItem[];
  /** The per-token templates with their prefixes and readers. */
  private readonly perToken: Array<{
    readonly spec: PerTokenResourceSpec;
    readonly prefix: string;
    readonly read: (tokenId: string) => Promise<unknown | null>;
  }> = [];

  constructor(
    private readonly live: LiveDocumentSources,
    resourcesDir: URL = RESOURCES_DIR,
    manifest: readonly ResourceSpec[] = RESOURCE_MANIFEST,
  ) {
    for (const spec of manifest) {
      if (spec.kind === 'file')
        this.markdown.set(spec.uri, readFileSync(new URL(spec.file, resourcesDir), 'utf8'));
      if (spec.kind === 'per-token') {
        // Like a missing markdown file: a template without its reader stops the start.
        const read = Object.hasOwn(live.perToken, spec.reader) ? live.perToken[spec.reader] : undefined;
        if (typeof read !== 'function')
          throw new Error(`MCP resource ${spec.uri}: no per-token reader named "${spec.reader}"`);
        this.perToken.push({ spec, prefix: perTokenPrefix(spec), read });
      }
    }
    this.items = manifest.map((spec) => ({
      uri: spec.uri,
      name: spec.name,
      type: typeOf(spec),
      description: spec.description,
    }));
  }

  /** Every listed item, the DID template included. */
  all(): readonly McpResourceItem[] {
    return this.items;
  }

  /** Items that are concrete URIs (what MCP `resources/list` returns; templates go to `resources/templates/list`). */
  concrete(): McpResourceItem[] {
    return this.items.filter((item) => !item.uri.includes('{'));
  }

  /** Items that are URI templates (what MCP `resources/templates/list` returns). */
  templates(): McpResourceItem[] {
    return this.items.filter((item) => item.uri.includes('{'));
  }

  /** One page of the listing; `offset`/`limit` already validated. */
  page(offset: number, limit: number): ResourcePage {
    const resources = this.items.slice(offset, offset + limit);
    const next = offset + limit;
    return next < this.items.length ? { resources, nextCursor: String(next) } : { resources };
  }

  /**
   * Reads one resource by URI. Throws MCP_RESOURCE_NOT_FOUND (details.uri) for unknown URIs and
   * DID URIs with no passport; MCP_RESOURCE_FAILED when a live source fails.
   */
  async read(uri: string): Promise<McpResourceContent> {
    const text = this.markdown.get(uri);
    if (text !== undefined) return { uri, type: MARKDOWN, text };
    if (uri === 'openapi:swagger')
      return this.json(
        uri,
        () => this.live.openApiDocument(),
        () => this.live.openApiJson(),
      );
    if (uri === 'token:facial-categories') return this.json(uri, () => this.live.facialCategories());
    if (!uri.includes('{')) {
      for (const { spec, prefix, read } of this.perToken) {
        if (!uri.startsWith(prefix)) continue;
        const document = await this.guard(uri, () => read(uri.slice(prefix.length)));
        if (document === null)
          throw new AppError('MCP_RESOURCE_NOT_FOUND', { uri: echoed(uri), reason: spec.notFoundReason });
        return { uri, type: JSON_TYPE, text: JSON.stringify(document, null, 2), json: document };
      }
    }
    // The listing names templates beside documents (the specification's registry): reading one as it
    // is listed gets what to fill in, not a bare "not found".
    const template = this.perToken.find(({ spec }) => spec.uri === uri);
    if (template)
      throw new AppError('MCP_RESOURCE_NOT_FOUND', {
        uri,
        reason: 'URI_TEMPLATE',
        hint: template.spec.description,
      });
    throw new AppError('MCP_RESOURCE_NOT_FOUND', { uri: echoed(uri) });
  }

  /**
   * A fixed JSON document, serialised once while its source gives the same object: the OpenAPI
   * document is ~320 KB, and serialising it on every read cost milliseconds of CPU and a copy per answer.
   */
  private async json(
    uri: string,
    produce: () => unknown,
    bytesOf?: () => Buffer,
  ): Promise<McpResourceContent> {
    const value = await this.guard(uri, async () => produce());
    const cached = this.serialised.get(uri);
    if (cached !== undefined && cached.json === value) return cached;
    const content = {
      uri,
      type: JSON_TYPE,
      text: JSON.stringify(value, null, 2),
      json: value,
      jsonBytes: bytesOf ? await this.guard(uri, async () => bytesOf()) : Buffer.from(JSON.stringify(value)),
    };
    this.serialised.set(uri, content);
    return content;
  }

  /** Live sources may fail (chain down, document not loadable); the client sees a stable code only. */
  private async guard<T>(uri: string, produce: () => Promise<T>): Promise<T> {
    try {
      return await produce();
    } catch (error) {
      if (error instanceof PassportError && httpStatusOfError(error) < 500) throw error;
      throw new AppError('MCP_RESOURCE_FAILED', { uri: echoed(uri) });
    }
  }
}

/**
 * A URI as an error echoes it: printable (a bidi override or a control character would restyle the text
 * a client shows; an audit found them echoed as sent) and at most 256 characters.
 */
function echoed(uri: string): string {
  return printableText(uri, 256);
}
