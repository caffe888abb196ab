/**
 * The discovery bodies (spec: Root discovery body, Enrollment body, MCP discovery body), built from
 * the deployment's public URL. Pure functions: the controller adds `requestId` and `timestamp`.
 */
import { APP_NAME, APP_VERSION } from '../platform/config/app-version.js';
import {
  MCP_ERA_CHOICE,
  SESSIONED_PROTOCOL_VERSIONS,
  STATELESS_PROTOCOL_VERSION,
} from '../mcp/mcp-protocol-versions.js';
import { ENDPOINT_GROUPS, MCP_TOOLS, PATHS, RESOURCE_URIS, resourcePath } from './discovery.paths.js';

export function rootDiscovery(base: string) {
  const skillsHttp = `${base}${resourcePath(RESOURCE_URIS.skills)}`;
  return {
    name: APP_NAME,
    version: APP_VERSION,
    description:
      'Identity for AI agents: each agent holds an on-chain passport (a 12-letter token id) and proves it with ' +
      'Ed25519 signatures: a challenge login that issues a JWT, and HOLA lines that peers verify here.',
    agentGuide: {
      summary:
        'Read doc:discovery first, then skills:skills. Log in with GET /api/login/timestamp and POST /api/login, ' +
        'fetch a nonce from GET /api/holanonce16ts, sign a HOLA line, and verify peers with POST /api/identity/verify.',
      discovery: {
        resourceUri: RESOURCE_URIS.discovery,
        http: `${base}${resourcePath(RESOURCE_URIS.discovery)}`,
      },
      skills: {
        resourceUris: [RESOURCE_URIS.skills, RESOURCE_URIS.skillsOverview],
        http: skillsHttp,
        mcpTools: { list: 'list_resources', get: 'get_resource' },
        steps: {
          mcpClient: `Connect an MCP client to ${base}${PATHS.mcp} (streamable HTTP), call list_resources, then get_resource with uri "${RESOURCE_URIS.skills}".`,
          curl: `curl -s ${skillsHttp}`,
        },
      },
      mcpDiscovery: `${base}${PATHS.mcpDiscovery}`,
      listResources: `${base}${PATHS.mcpResources}`,
    },
    enrollment: {
      url: `${base}${PATHS.enrollment}`,
      guide: PATHS.enrollment,
      badge: 'Get a passport for your agent: one key, one token id, verifiable by anyone.',
    },
    documentation: {
      swagger: `${base}${PATHS.swagger}`,
      openapi: `${base}${PATHS.openapi}`,
      html: `${base}${PATHS.docs}`,
    },
    endpoints: {
      public: [...ENDPOINT_GROUPS.public],
      authenticated: [...ENDPOINT_GROUPS.authenticated],
      privileged: [...ENDPOINT_GROUPS.privileged],
    },
    wellKnown: {
      enrollment: PATHS.enrollment,
      termsOfService: PATHS.termsOfService,
      privacyPolicy: PATHS.privacyPolicy,
      dataRetention: PATHS.dataRetention,
      did: PATHS.did,
      didMethod: PATHS.didMethod,
    },
    mcp: {
      endpoint: PATHS.mcp,
      resources: PATHS.mcpResources,
      schema: PATHS.mcpSchema,
      discovery: PATHS.mcpDiscovery,
      tools: MCP_TOOLS.map((t) => t.name),
      skills: {
        primaryUri: RESOURCE_URIS.skills,
        alternateUri: RESOURCE_URIS.skillsOverview,
        fetch: resourcePath(RESOURCE_URIS.skills),
        source: 'mcp-resource',
      },
      httpAccessForAgents: {
        discovery: resourcePath(RESOURCE_URIS.discovery),
        list: PATHS.mcpResources,
        getByUri: PATHS.mcpResource,
        skills: resourcePath(RESOURCE_URIS.skills),
      },
      protocolVersions: {
        stateless: STATELESS_PROTOCOL_VERSION,
        sessioned: [...SESSIONED_PROTOCOL_VERSIONS],
        recommended: STATELESS_PROTOCOL_VERSION,
      },
      doNotUseRawHttpGetOn: PATHS.mcp,
      note: `${PATHS.mcp} speaks MCP streamable HTTP only; a plain GET without an Mcp-Session-Id is refused. Plain HTTP clients use ${PATHS.mcpResources}.`,
    },
  };
}

export function enrollmentDocument(base: string) {
  return {
    title: `Enrollment: get a passport for ${APP_NAME}`,
    enrollment: {
      url: `${base}${PATHS.enrollment}`,
      description:
        'A passport is an on-chain token owned by an Ed25519 key. This deployment signs passports of its family ' +
        '(POST /api/signclient); once minted, the key holder logs in and signs HOLA lines.',
    },
    enrollmentSteps: [
      {
        step: 1,
        title: 'Create a key',
        description: 'Generate an Ed25519 key pair. Its public key in hex is your implicit account id.',
        details: {
          keyFormat: 'NEAR credential JSON (account_id, public_key, private_key)',
          privateKeyLeavesYourMachine: false,
        },
      },
      {
        step: 2,
        title: 'Have the passport signed and minted',
        description:
          'Send the passport metadata and the minting fee to POST /api/signclient, then mint the token with the signature.',
        details: { endpoint: PATHS.signclient, tiers: ['personal', 'enterprise', 'collectible'] },
      },
      {
        step: 3,
        title: 'Log in',
        description:
          'GET /api/login/timestamp, sign identifier + timestamp_iso (base64url Ed25519), POST /api/login; keep jwt_token.',
        details: { challenge: PATHS.loginTimestamp, login: PATHS.login, jwtLifetimeSeconds: 3600 },
      },
      {
        step: 4,
        title: 'Say HOLA',
        description:
          'GET /api/holanonce16ts with the bearer token, build and sign a HOLA line, and let peers verify it.',
        details: { nonce: '/api/holanonce16ts', verify: '/api/identity/verify', selfTest: '/api/testhola' },
      },
    ],
    support: {
      faq: `${base}${resourcePath(RESOURCE_URIS.troubleshooting)}`,
      contact: `${base}${PATHS.trustAnchor}`,
      documentation: `${base}${PATHS.docs}`,
      examples: `${base}${resourcePath(RESOURCE_URIS.enrollmentGuide)}`,
    },
  };
}

/**
 * What a HOLA line must carry to verify here: the host marker (`SERVICE_HOST`, else the public URL's
 * host), published so that clients build lines from what the server says rather than from the URL
 * they happened to reach it by (a proxy, another port).
 */
export function holaDiscovery(serviceHost: string) {
  return { serviceHost, nonce: '/api/holanonce16ts', verify: '/api/identity/verify' };
}

export function mcpDiscovery(base: string) {
  return {
    title: `${APP_NAME}: MCP documentation server`,
    transport: { protocol: 'streamable-http', endpoint: PATHS.mcp, absoluteEndpoint: `${base}${PATHS.mcp}` },
    resources: {
      list: PATHS.mcpResources,
      getByUri: PATHS.mcpResource,
      examples: [
        RESOURCE_URIS.discovery,
        RESOURCE_URIS.skills,
        RESOURCE_URIS.openapi,
        'did:resolve:{tokenId}',
      ],
    },
    tools: MCP_TOOLS.map((t) => ({ ...t })),
    registration: {
      recommendedServerName: 'passport-identity',
      aliases: ['passport', 'passport-identity-api'],
    },
    docs: {
      skills: resourcePath(RESOURCE_URIS.skills),
      mcpResources: PATHS.mcpResources,
      enrollmentGuide: PATHS.enrollment,
      openapi: PATHS.openapi,
    },
    agentGuide: {
      summary:
        'Documentation only: the MCP server logs nobody in. Read skills:skills, then use the REST API.',
      skills: {
        resourceUris: [RESOURCE_URIS.skills, RESOURCE_URIS.skillsOverview],
        http: resourcePath(RESOURCE_URIS.skills),
      },
    },
    httpAccessForAgents: {
      discovery: resourcePath(RESOURCE_URIS.discovery),
      list: PATHS.mcpResources,
      getByUri: PATHS.mcpResource,
      health: PATHS.health,
      skills: resourcePath(RESOURCE_URIS.skills),
      examples: [
        `curl -s ${base}${PATHS.mcpResources}`,
        `curl -s ${base}${resourcePath(RESOURCE_URIS.discovery)}`,
      ],
    },
    protocols: {
      selection: 'per-request',
      recommended: STATELESS_PROTOCOL_VERSION,
      stateless: { revisions: [STATELESS_PROTOCOL_VERSION], session: false, start: 'server/discover' },
      sessioned: { revisions: [...SESSIONED_PROTOCOL_VERSIONS], session: true, start: 'initialize' },
      howToChoose: MCP_ERA_CHOICE,
    },
    doNotUseRawHttpGetOn: PATHS.mcp,
    transportNote:
      `Stateless (${STATELESS_PROTOCOL_VERSION}): send the _meta envelope and the MCP-Protocol-Version header on every request, no session. ` +
      'Sessioned: POST an initialize request to /mcp to get an Mcp-Session-Id, then send it on every request; DELETE /mcp ends the session.',
  };
}
