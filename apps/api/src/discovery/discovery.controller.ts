/**
 * Discovery endpoints: the root body, `/.well-known/enrollment`, `/.well-known/mcp`, and the policy
 * documents. All public, all computed from the deployment's public URL.
 */
import { Controller, Get, Inject, Res } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AppConfig } from '../platform/config/app-config.js';
import { isoTimestamp } from '../platform/http/iso-timestamp.js';
import { RequestId } from '../platform/http/request-id.decorator.js';
import { APP_CONFIG } from '../platform/infrastructure/di-tokens.js';
import { enrollmentDocument, holaDiscovery, mcpDiscovery, rootDiscovery } from './discovery.documents.js';
import {
  enrollmentComponent,
  mcpDiscoveryComponent,
  policyDocumentComponent,
  rootDiscoveryComponent,
  type Enrollment,
  type McpDiscovery,
  type PolicyDocument,
  type RootDiscovery,
} from './discovery.schema.js';
import { policyDocument, type PolicyFacts, type PolicyName } from './policy.documents.js';
import { JSON_UTF8 } from '../platform/http/json-content-type.js';

const stamp = (requestId: string) => ({ requestId, timestamp: isoTimestamp() });
@ApiTags('discovery')
@Controller()
export class DiscoveryController {
  private readonly base: string;
  private readonly policyFacts: PolicyFacts;
  private readonly hola: ReturnType<typeof holaDiscovery>;
  /**
   * The root body up to its per-request members, serialised once: it is the largest body of a hot
   * route, and stringifying (and copying) it on every request was most of that route's own cost.
   */
  private readonly rootBodyHead: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.base = config.publicBaseUrl;
    this.policyFacts = {
      sessionTtlSeconds: config.sessions.ttlSeconds,
      holaFutureSkewMs: config.holaFutureSkewMs,
      logLevel: config.logLevel,
    };
    this.hola = holaDiscovery(config.serviceHost);
    const fixedPart: Omit<RootDiscovery, 'requestId' | 'timestamp'> = {
      ...rootDiscovery(this.base),
      hola: this.hola,
    };
    const fixed = JSON.stringify(fixedPart);
    this.rootBodyHead = fixed.slice(0, -1); // without the closing brace
  }

  @Get()
  @ApiOperation({ summary: 'Root discovery: what this service is and where everything lives' })
  @ApiOkResponse({ schema: rootDiscoveryComponent })
  root(@RequestId() requestId: string, @Res({ passthrough: true }) reply: FastifyReply): string {
    // The same bytes JSON.stringify gives for `{ ...rootDiscovery, hola, requestId, timestamp }`.
    void reply.type(JSON_UTF8);
    const { timestamp } = stamp(requestId);
    return `${this.rootBodyHead},"requestId":${JSON.stringify(requestId)},"timestamp":${JSON.stringify(timestamp)}}`;
  }

  @Get('.well-known/enrollment')
  @ApiOperation({ summary: 'How to obtain a passport and start using it' })
  @ApiOkResponse({ schema: enrollmentComponent })
  enrollment(@RequestId() requestId: string): Enrollment {
    return { ...enrollmentDocument(this.base), ...stamp(requestId) };
  }

  @Get('.well-known/mcp')
  @ApiOperation({ summary: 'MCP discovery: transport, tools and plain-HTTP access to the documentation' })
  @ApiOkResponse({ schema: mcpDiscoveryComponent })
  mcp(@RequestId() requestId: string): McpDiscovery {
    return { ...mcpDiscovery(this.base), hola: this.hola, ...stamp(requestId) };
  }

  @Get('.well-known/terms-of-service')
  @ApiOperation({ summary: 'Terms of service' })
  @ApiOkResponse({ schema: policyDocumentComponent })
  termsOfService(@RequestId() requestId: string): PolicyDocument {
    return this.policy('terms-of-service', requestId);
  }

  @Get('.well-known/privacy-policy')
  @ApiOperation({ summary: 'Privacy policy' })
  @ApiOkResponse({ schema: policyDocumentComponent })
  privacyPolicy(@RequestId() requestId: string): PolicyDocument {
    return this.policy('privacy-policy', requestId);
  }

  @Get('.well-known/data-retention')
  @ApiOperation({ summary: 'What is stored and for how long' })
  @ApiOkResponse({ schema: policyDocumentComponent })
  dataRetention(@RequestId() requestId: string): PolicyDocument {
    return this.policy('data-retention', requestId);
  }

  @Get('.well-known/why-identyclaw')
  @ApiOperation({ summary: 'Why passports for agents' })
  @ApiOkResponse({ schema: policyDocumentComponent })
  whyIdentyclaw(@RequestId() requestId: string): PolicyDocument {
    return this.policy('why-identyclaw', requestId);
  }

  private policy(name: PolicyName, requestId: string): PolicyDocument {
    const doc = policyDocument(name, this.base, this.policyFacts);
    return { ...doc, sections: [...doc.sections], ...stamp(requestId) };
  }
}
