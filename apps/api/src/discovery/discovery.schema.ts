/**
 * Response bodies of the discovery documents (spec: Root discovery body, Enrollment body, MCP discovery
 * body) and the policy documents, described once. Nested objects are inline OpenAPI fragments
 * (`platform/openapi/schema-helpers`): every listed property required, no other allowed.
 */
import { type SchemaObject } from '@nestjs/swagger';
import { z } from 'zod';
import { obj, str, strArray, uri } from '../platform/openapi/schema-helpers.js';
import { documentedAs, openApiComponent } from '../platform/openapi/zod-openapi.js';

type Nested = Record<string, unknown>;
const nested = (schema: SchemaObject) => documentedAs<Nested>(schema);
const dateTime = () => z.string().meta({ format: 'date-time' });

const holaMarkers = nested({
  ...obj({ serviceHost: str, nonce: str, verify: str }),
  description:
    'What a HOLA line must name to verify here: serviceHost is the host marker (SERVICE_HOST, else the public ' +
    "URL's host). Build lines with it, not with the host of the URL this server was reached by.",
});

export const rootDiscoverySchema = z.object({
  name: z.string().meta({ example: 'Passport Identity API' }),
  version: z.string().meta({ description: 'Service version; equals info.version of /openapi.json.' }),
  description: z.string(),
  agentGuide: nested(
    obj({
      summary: str,
      discovery: obj({ resourceUri: str, http: uri }),
      skills: obj({
        resourceUris: strArray,
        http: uri,
        mcpTools: obj({ list: str, get: str }),
        steps: obj({ mcpClient: str, curl: str }),
      }),
      mcpDiscovery: uri,
      listResources: uri,
    }),
  ),
  enrollment: nested(obj({ url: uri, guide: str, badge: str })),
  hola: holaMarkers,
  documentation: nested(obj({ swagger: uri, openapi: uri, html: uri })),
  endpoints: nested(obj({ public: strArray, authenticated: strArray, privileged: strArray })),
  wellKnown: nested(
    obj({
      enrollment: str,
      termsOfService: str,
      privacyPolicy: str,
      dataRetention: str,
      did: str,
      didMethod: str,
    }),
  ),
  mcp: nested(
    obj({
      endpoint: str,
      resources: str,
      schema: str,
      discovery: str,
      tools: strArray,
      skills: obj({ primaryUri: str, alternateUri: str, fetch: str, source: str }),
      httpAccessForAgents: obj({ discovery: str, list: str, getByUri: str, skills: str }),
      protocolVersions: obj({ stateless: str, sessioned: strArray, recommended: str }),
      doNotUseRawHttpGetOn: str,
      note: str,
    }),
  ),
  requestId: z.string(),
  timestamp: dateTime(),
});
export type RootDiscovery = z.infer<typeof rootDiscoverySchema>;

export const enrollmentSchema = z.object({
  title: z.string(),
  enrollment: nested(obj({ url: uri, description: str })),
  enrollmentSteps: z.array(
    z
      .object({
        step: z.int(),
        title: z.string(),
        description: z.string(),
        details: z.record(z.string(), z.unknown()).meta({ additionalProperties: true }),
      })
      .strict(),
  ),
  support: nested(obj({ faq: uri, contact: uri, documentation: uri, examples: uri })),
  requestId: z.string(),
  timestamp: dateTime(),
});
export type Enrollment = z.infer<typeof enrollmentSchema>;

const eraSchema = obj({ revisions: strArray, session: { type: 'boolean' }, start: str });

export const mcpDiscoverySchema = z.object({
  title: z.string(),
  transport: nested(
    obj({
      protocol: { type: 'string', enum: ['streamable-http'] },
      endpoint: { type: 'string', enum: ['/mcp'] },
      absoluteEndpoint: { type: 'string', format: 'uri', nullable: true },
    }),
  ),
  resources: nested(obj({ list: str, getByUri: str, examples: strArray })),
  tools: z.array(z.object({ name: z.string(), description: z.string() }).strict()),
  registration: nested(obj({ recommendedServerName: str, aliases: strArray })),
  hola: holaMarkers,
  docs: nested(obj({ skills: str, mcpResources: str, enrollmentGuide: str, openapi: str })),
  agentGuide: nested(obj({ summary: str, skills: obj({ resourceUris: strArray, http: str }) })),
  httpAccessForAgents: nested(
    obj({ discovery: str, list: str, getByUri: str, health: str, skills: str, examples: strArray }),
  ),
  protocols: nested({
    ...obj({
      selection: { type: 'string', enum: ['per-request'] },
      recommended: str,
      stateless: eraSchema,
      sessioned: eraSchema,
      howToChoose: str,
    }),
    description:
      'The MCP protocol revisions /mcp serves, both on the one endpoint, and how a client picks one.',
  }),
  doNotUseRawHttpGetOn: z.string().meta({ example: '/mcp' }),
  transportNote: z.string(),
  requestId: z.string(),
  timestamp: dateTime(),
});
export type McpDiscovery = z.infer<typeof mcpDiscoverySchema>;

export const policyDocumentSchema = z.object({
  title: z.string(),
  version: z.string().meta({ description: 'Service version the text applies to.' }),
  summary: z.string(),
  sections: z.array(z.object({ heading: z.string(), text: z.string() }).strict()),
  contact: z.string().meta({ format: 'uri' }),
  requestId: z.string(),
  timestamp: dateTime(),
});
export type PolicyDocument = z.infer<typeof policyDocumentSchema>;

export const rootDiscoveryComponent = openApiComponent('RootDiscoveryDto', rootDiscoverySchema);
export const enrollmentComponent = openApiComponent('EnrollmentDto', enrollmentSchema);
export const mcpDiscoveryComponent = openApiComponent('McpDiscoveryDto', mcpDiscoverySchema);
export const policyDocumentComponent = openApiComponent('PolicyDocumentDto', policyDocumentSchema);
