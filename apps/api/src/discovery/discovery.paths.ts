/**
 * The paths and resource URIs the discovery documents point to, in one place, so the root body,
 * the enrollment body and the MCP discovery body cannot disagree with each other.
 */
export const PATHS = {
  root: '/',
  health: '/health',
  openapi: '/openapi.json',
  swagger: '/swagger.json',
  docs: '/docs',
  enrollment: '/.well-known/enrollment',
  mcpDiscovery: '/.well-known/mcp',
  termsOfService: '/.well-known/terms-of-service',
  privacyPolicy: '/.well-known/privacy-policy',
  dataRetention: '/.well-known/data-retention',
  whyIdentyclaw: '/.well-known/why-identyclaw',
  did: '/.well-known/did',
  didMethod: '/.well-known/did/passport/{tokenId}',
  didResolve: '/.well-known/did/resolve',
  mcp: '/mcp',
  mcpResources: '/api/mcp/resources',
  mcpResource: '/api/mcp/resource/{uri}',
  mcpSchema: '/api/mcp/schema',
  loginTimestamp: '/api/login/timestamp',
  login: '/api/login',
  signclient: '/api/signclient',
  trustAnchor: '/api/concierge/trust-anchor',
} as const;

/** The `endpoints` groups of the root body, exactly as the spec lists them. */
export const ENDPOINT_GROUPS = {
  public: [
    PATHS.didMethod,
    PATHS.didResolve,
    PATHS.enrollment,
    '/api/agents',
    '/api/identity/verify',
    '/api/identity/token/{tokenId}/public',
    PATHS.loginTimestamp,
    PATHS.signclient,
  ],
  authenticated: [
    '/api/me/identity',
    PATHS.login,
    '/api/logout',
    '/api/isauthorizedsigner',
    '/api/holanonce16ts',
  ],
  privileged: ['/api/metrics', '/api/sessions'],
} as const;

/** MCP resource URIs (apps/api/src/mcp/mcp-resource.manifest.ts). */
export const RESOURCE_URIS = {
  discovery: 'doc:discovery',
  skills: 'skills:skills',
  skillsOverview: 'doc:skills',
  openapi: 'openapi:swagger',
  enrollmentGuide: 'guide:enrollment',
  troubleshooting: 'guide:troubleshooting',
  apiGuide: 'guide:api',
  near: 'onboarding:near',
} as const;

export const MCP_TOOLS = [
  { name: 'list_resources', description: 'List the documentation resources (optional limit and cursor).' },
  { name: 'get_resource', description: 'Read one documentation resource by its uri.' },
] as const;

export const resourcePath = (uri: string): string => `${PATHS.mcpResources.replace(/s$/, '')}/${uri}`;
