/** DI tokens of the MCP module's own providers (its classes need configuration, so they are built by factories). */
export const MCP_SESSION_REGISTRY = Symbol('MCP_SESSION_REGISTRY');
export const MCP_SERVER_FACTORY = Symbol('MCP_SERVER_FACTORY');
export const MCP_HOST_ALLOWLIST = Symbol('MCP_HOST_ALLOWLIST');
export const MCP_RESOURCE_CATALOG = Symbol('MCP_RESOURCE_CATALOG');
export const MCP_LIVE_DOCUMENTS = Symbol('MCP_LIVE_DOCUMENTS');
export const MCP_STATELESS_ENDPOINT = Symbol('MCP_STATELESS_ENDPOINT');
