/**
 * Response schemas of the discovery documents (spec: Root discovery body, Enrollment body, MCP
 * discovery body) and the policy documents. Nested objects are inline schemas (openapi/schema-helpers).
 */
import { ApiProperty } from '@nestjs/swagger';
import { obj, str, strArray, uri } from '../platform/openapi/schema-helpers.js';

export class RootDiscoveryDto {
  @ApiProperty({ example: 'Passport Identity API' }) name!: string;
  @ApiProperty({ description: 'Service version; equals info.version of /openapi.json.' }) version!: string;
  @ApiProperty() description!: string;

  @ApiProperty(
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
    }) as never,
  )
  agentGuide!: Record<string, unknown>;

  @ApiProperty(obj({ url: uri, guide: str, badge: str }) as never)
  enrollment!: Record<string, unknown>;

  @ApiProperty({
    ...obj({ serviceHost: str, nonce: str, verify: str }),
    description:
      'What a HOLA line must name to verify here: serviceHost is the host marker (SERVICE_HOST, else the public ' +
      "URL's host). Build lines with it, not with the host of the URL this server was reached by.",
  } as never)
  hola!: Record<string, unknown>;

  @ApiProperty(obj({ swagger: uri, openapi: uri, html: uri }) as never)
  documentation!: Record<string, unknown>;

  @ApiProperty(obj({ public: strArray, authenticated: strArray, privileged: strArray }) as never)
  endpoints!: Record<string, unknown>;

  @ApiProperty(
    obj({
      enrollment: str,
      termsOfService: str,
      privacyPolicy: str,
      dataRetention: str,
      did: str,
      didMethod: str,
    }) as never,
  )
  wellKnown!: Record<string, unknown>;

  @ApiProperty(
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
    }) as never,
  )
  mcp!: Record<string, unknown>;

  @ApiProperty() requestId!: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) timestamp!: string;
}

export class EnrollmentDto {
  @ApiProperty() title!: string;

  @ApiProperty(obj({ url: uri, description: str }) as never)
  enrollment!: Record<string, unknown>;

  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['step', 'title', 'description', 'details'],
      properties: {
        step: { type: 'integer' },
        title: str,
        description: str,
        details: { type: 'object', additionalProperties: true },
      },
    },
  })
  enrollmentSteps!: Record<string, unknown>[];

  @ApiProperty(obj({ faq: uri, contact: uri, documentation: uri, examples: uri }) as never)
  support!: Record<string, unknown>;

  @ApiProperty() requestId!: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) timestamp!: string;
}

export class McpDiscoveryDto {
  @ApiProperty() title!: string;

  @ApiProperty(
    obj({
      protocol: { type: 'string', enum: ['streamable-http'] },
      endpoint: { type: 'string', enum: ['/mcp'] },
      absoluteEndpoint: { type: 'string', format: 'uri', nullable: true },
    }) as never,
  )
  transport!: Record<string, unknown>;

  @ApiProperty(obj({ list: str, getByUri: str, examples: strArray }) as never)
  resources!: Record<string, unknown>;

  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'description'],
      properties: { name: str, description: str },
    },
  })
  tools!: Record<string, unknown>[];

  @ApiProperty(obj({ recommendedServerName: str, aliases: strArray }) as never)
  registration!: Record<string, unknown>;

  @ApiProperty({
    ...obj({ serviceHost: str, nonce: str, verify: str }),
    description:
      'What a HOLA line must name to verify here: serviceHost is the host marker (SERVICE_HOST, else the public ' +
      "URL's host). Build lines with it, not with the host of the URL this server was reached by.",
  } as never)
  hola!: Record<string, unknown>;

  @ApiProperty(obj({ skills: str, mcpResources: str, enrollmentGuide: str, openapi: str }) as never)
  docs!: Record<string, unknown>;

  @ApiProperty(obj({ summary: str, skills: obj({ resourceUris: strArray, http: str }) }) as never)
  agentGuide!: Record<string, unknown>;

  @ApiProperty(
    obj({ discovery: str, list: str, getByUri: str, health: str, skills: str, examples: strArray }) as never,
  )
  httpAccessForAgents!: Record<string, unknown>;

  @ApiProperty({
    ...(obj({
      selection: { type: 'string', enum: ['per-request'] },
      recommended: str,
      stateless: obj({ revisions: strArray, session: { type: 'boolean' }, start: str }),
      sessioned: obj({ revisions: strArray, session: { type: 'boolean' }, start: str }),
      howToChoose: str,
    }) as object),
    description:
      'The MCP protocol revisions /mcp serves, both on the one endpoint, and how a client picks one.',
  } as never)
  protocols!: Record<string, unknown>;

  @ApiProperty({ example: '/mcp' }) doNotUseRawHttpGetOn!: string;
  @ApiProperty() transportNote!: string;
  @ApiProperty() requestId!: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) timestamp!: string;
}

export class PolicyDocumentDto {
  @ApiProperty() title!: string;
  @ApiProperty({ description: 'Service version the text applies to.' }) version!: string;
  @ApiProperty() summary!: string;

  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['heading', 'text'],
      properties: { heading: str, text: str },
    },
  })
  sections!: { heading: string; text: string }[];

  @ApiProperty({ type: 'string', format: 'uri' }) contact!: string;
  @ApiProperty() requestId!: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) timestamp!: string;
}
