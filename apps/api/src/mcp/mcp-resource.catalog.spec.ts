/**
 * The resource catalog: every manifest document exists and is real documentation, paging visits each
 * item exactly once, and unknown URIs, missing DIDs and failing live sources give stable codes.
 */
import { isPassportError } from '@passport/core';
import { McpResourceCatalog, type LiveDocumentSources } from './mcp-resource.catalog.js';
import { RESOURCE_MANIFEST } from './mcp-resource.manifest.js';

const OPENAPI = { openapi: '3.0.3' };
const live: LiveDocumentSources = {
  openApiDocument: () => OPENAPI,
  openApiJson: () => Buffer.from(JSON.stringify(OPENAPI)),
  facialCategories: () => ({ categories: [] }),
  perToken: {
    did: async (tokenId) => (tokenId === 'lhsrldbjsnlh' ? { id: `did:passport:${tokenId}` } : null),
  },
};

const codeOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return isPassportError(error) ? { code: error.code, details: error.details } : 'other';
  }
};

describe('McpResourceCatalog', () => {
  const catalog = new McpResourceCatalog(live);

  it('lists the URIs the spec names, reference topics included', () => {
    const uris = catalog.all().map((i) => i.uri);
    for (const uri of [
      'doc:discovery',
      'doc:skills',
      'skills:skills',
      'openapi:swagger',
      'guide:enrollment',
      'guide:troubleshooting',
      'guide:api',
      'onboarding:near',
      'did:resolve:{tokenId}',
      'token:facial-categories',
      'doc:reference:login',
      'doc:reference:hola',
      'doc:reference:subagents',
      'doc:reference:errors',
      'doc:reference:rate-limits',
    ]) {
      expect(uris).toContain(uri);
    }
    expect(new Set(uris).size).toBe(uris.length);
  });

  it('serves every markdown document with a title and substance', async () => {
    for (const spec of RESOURCE_MANIFEST.filter((s) => s.kind === 'file')) {
      const content = await catalog.read(spec.uri);
      expect(content.type).toBe('text/markdown');
      expect(content.text).toMatch(/^# \S/);
      expect(content.text.length).toBeGreaterThan(1200);
      expect(content.text).not.toMatch(/\b(TODO|TBD|lorem ipsum)\b/i);
    }
  });

  it('pages through every item exactly once for every page size', () => {
    const total = catalog.all().length;
    for (let limit = 1; limit <= total + 1; limit++) {
      const seen: string[] = [];
      let cursor: string | undefined = '0';
      while (cursor !== undefined) {
        const page = catalog.page(Number(cursor), limit);
        seen.push(...page.resources.map((r) => r.uri));
        cursor = page.nextCursor;
      }
      expect(seen).toEqual(catalog.all().map((r) => r.uri));
    }
    expect(catalog.page(total, 20)).toEqual({ resources: [] });
  });

  it('answers MCP_RESOURCE_NOT_FOUND with details.uri for unknown URIs', async () => {
    for (const uri of ['doc:nothing', 'DOC:DISCOVERY', 'did:resolve:{tokenid}', '', 'doc:discovery ']) {
      expect(await codeOf(catalog.read(uri))).toEqual({ code: 'MCP_RESOURCE_NOT_FOUND', details: { uri } });
    }
  });

  // A probe as an AI agent read the template as listed and got a bare "not found".
  it('answers the literal template, as listed, with what to fill in', async () => {
    expect(await codeOf(catalog.read('did:resolve:{tokenId}'))).toEqual({
      code: 'MCP_RESOURCE_NOT_FOUND',
      details: {
        uri: 'did:resolve:{tokenId}',
        reason: 'URI_TEMPLATE',
        hint: expect.stringContaining('Replace {tokenId} with a 12-letter token id'),
      },
    });
  });

  it('resolves DIDs live and reports a missing passport as not found', async () => {
    const found = await catalog.read('did:resolve:lhsrldbjsnlh');
    expect(found.json).toEqual({ id: 'did:passport:lhsrldbjsnlh' });
    expect(await codeOf(catalog.read('did:resolve:bjbvcjzqbdsj'))).toEqual({
      code: 'MCP_RESOURCE_NOT_FOUND',
      details: { uri: 'did:resolve:bjbvcjzqbdsj', reason: 'DID_NOT_FOUND' },
    });
  });

  // A probe: the ~320 KB OpenAPI document was serialised on every read (CPU, and a copy per answer).
  it('serialises a fixed JSON document once while its source gives the same object, and again when it changes', async () => {
    let document: object = OPENAPI;
    const catalog = new McpResourceCatalog({
      ...live,
      openApiDocument: () => document,
      openApiJson: () => Buffer.from(JSON.stringify(document)),
    });
    const first = await catalog.read('openapi:swagger');
    expect(first.text).toBe(JSON.stringify(OPENAPI, null, 2));
    expect(first.jsonBytes?.toString()).toBe(JSON.stringify(OPENAPI));
    expect(await catalog.read('openapi:swagger')).toBe(first);
    document = { openapi: '3.0.3', info: { title: 'regenerated' } };
    const second = await catalog.read('openapi:swagger');
    expect(second.json).toBe(document);
    expect(second.jsonBytes?.toString()).toBe(JSON.stringify(document));
  });

  it('hides a failing live source behind MCP_RESOURCE_FAILED', async () => {
    const broken = new McpResourceCatalog({
      ...live,
      openApiDocument: () => {
        throw new Error('disk on fire at /secret/path');
      },
      // Every reader of the manifest (a new per-token resource needs none added here), the DID's failing.
      perToken: {
        ...live.perToken,
        did: async () => {
          throw new Error('rpc timeout');
        },
      },
    });
    expect(await codeOf(broken.read('openapi:swagger'))).toEqual({
      code: 'MCP_RESOURCE_FAILED',
      details: { uri: 'openapi:swagger' },
    });
    expect(await codeOf(broken.read('did:resolve:lhsrldbjsnlh'))).toEqual({
      code: 'MCP_RESOURCE_FAILED',
      details: { uri: 'did:resolve:lhsrldbjsnlh' },
    });
  });

  // A per-token resource is its manifest entry and its reader: the catalog serves, lists and refuses it
  // by itself (README: extending the MCP resources).
  it('serves a new per-token resource from its manifest entry and its reader alone', async () => {
    const keys = new McpResourceCatalog(
      {
        ...live,
        perToken: { ...live.perToken, keys: async (id) => (id === 'abcdefghijkl' ? { keys: [id] } : null) },
      },
      undefined,
      [
        ...RESOURCE_MANIFEST,
        {
          kind: 'per-token',
          uri: 'keys:of:{tokenId}',
          name: 'Keys (template)',
          description: 'The keys of a passport.',
          reader: 'keys',
          notFoundReason: 'KEYS_NOT_FOUND',
        },
      ],
    );
    const manifestTemplates = RESOURCE_MANIFEST.filter((spec) => spec.kind === 'per-token').map(
      (spec) => spec.uri,
    );
    expect(keys.templates().map((item) => item.uri)).toEqual([...manifestTemplates, 'keys:of:{tokenId}']);
    expect((await keys.read('keys:of:abcdefghijkl')).json).toEqual({ keys: ['abcdefghijkl'] });
    expect(await codeOf(keys.read('keys:of:zzzzzzzzzzzz'))).toEqual({
      code: 'MCP_RESOURCE_NOT_FOUND',
      details: { uri: 'keys:of:zzzzzzzzzzzz', reason: 'KEYS_NOT_FOUND' },
    });
    expect(await codeOf(keys.read('keys:of:{tokenId}'))).toEqual({
      code: 'MCP_RESOURCE_NOT_FOUND',
      details: { uri: 'keys:of:{tokenId}', reason: 'URI_TEMPLATE', hint: 'The keys of a passport.' },
    });
    // The DID template still reads through its own reader.
    expect((await keys.read('did:resolve:lhsrldbjsnlh')).json).toEqual({ id: 'did:passport:lhsrldbjsnlh' });
  });

  it('refuses to start with a per-token entry whose reader is missing', () => {
    expect(() => new McpResourceCatalog({ ...live, perToken: {} })).toThrow(
      'MCP resource did:resolve:{tokenId}: no per-token reader named "did"',
    );
    // An inherited name is no reader either.
    const inherited = Object.create({ did: async () => null }) as LiveDocumentSources['perToken'];
    expect(() => new McpResourceCatalog({ ...live, perToken: inherited })).toThrow(/no per-token reader/);
  });
});
