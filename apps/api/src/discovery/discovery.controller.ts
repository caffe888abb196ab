/**
 * Discovery endpoints: the root body, `/.well-known/enrollment`, `/.well-known/mcp`, and the policy
 * documents. All public, all computed from the deployment's public URL.
 */
import { Controller, Get, Inject, Res } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AppConfig } from '../config/app-config.js';
import { RequestId } from '../http/request-id.decorator.js';
import { APP_CONFIG } from '../infrastructure/di-tokens.js';
import { enrollmentDocument, holaDiscovery, mcpDiscovery, rootDiscovery } from './discovery.documents.js';
import { EnrollmentDto, McpDiscoveryDto, PolicyDocumentDto, RootDiscoveryDto } from './discovery.dto.js';
import { policyDocument, type PolicyName } from './policy.documents.js';

const stamp = (requestId: string) => ({ requestId, timestamp: new Date().toISOString() });
const JSON_UTF8 = 'application/json; charset=utf-8';

@ApiTags('discovery')
@Controller()
export class DiscoveryController {
  private readonly base: string;
  private readonly hola: ReturnType<typeof holaDiscovery>;
  /**
   * The root body up to its per-request members, serialised once: it is the largest body of a hot
   * route, and stringifying (and copying) it on every request was most of that route's own cost.
   */
  private readonly rootBodyHead: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.base = config.publicBaseUrl;
    this.hola = holaDiscovery(config.serviceHost);
    const fixed = JSON.stringify({ ...rootDiscovery(this.base), hola: this.hola });
    this.rootBodyHead = fixed.slice(0, -1); // without the closing brace
  }

  @Get()
  @ApiOperation({ summary: 'Root discovery: what this service is and where everything lives' })
  @ApiOkResponse({ type: RootDiscoveryDto })
  root(@RequestId() requestId: string, @Res({ passthrough: true }) reply: FastifyReply): string {
    // The same bytes JSON.stringify gives for `{ ...rootDiscovery, hola, requestId, timestamp }`.
    void reply.type(JSON_UTF8);
    const { timestamp } = stamp(requestId);
    return `${this.rootBodyHead},"requestId":${JSON.stringify(requestId)},"timestamp":${JSON.stringify(timestamp)}}`;
  }

  @Get('.well-known/enrollment')
  @ApiOperation({ summary: 'How to obtain a passport and start using it' })
  @ApiOkResponse({ type: EnrollmentDto })
  enrollment(@RequestId() requestId: string): EnrollmentDto {
    return { ...enrollmentDocument(this.base), ...stamp(requestId) };
  }

  @Get('.well-known/mcp')
  @ApiOperation({ summary: 'MCP discovery: transport, tools and plain-HTTP access to the documentation' })
  @ApiOkResponse({ type: McpDiscoveryDto })
  mcp(@RequestId() requestId: string): McpDiscoveryDto {
    return { ...mcpDiscovery(this.base), hola: this.hola, ...stamp(requestId) };
  }

  @Get('.well-known/terms-of-service')
  @ApiOperation({ summary: 'Terms of service' })
  @ApiOkResponse({ type: PolicyDocumentDto })
  termsOfService(@RequestId() requestId: string): PolicyDocumentDto {
    return this.policy('terms-of-service', requestId);
  }

  @Get('.well-known/privacy-policy')
  @ApiOperation({ summary: 'Privacy policy' })
  @ApiOkResponse({ type: PolicyDocumentDto })
  privacyPolicy(@RequestId() requestId: string): PolicyDocumentDto {
    return this.policy('privacy-policy', requestId);
  }

  @Get('.well-known/data-retention')
  @ApiOperation({ summary: 'What is stored and for how long' })
  @ApiOkResponse({ type: PolicyDocumentDto })
  dataRetention(@RequestId() requestId: string): PolicyDocumentDto {
    return this.policy('data-retention', requestId);
  }

  @Get('.well-known/why-identyclaw')
  @ApiOperation({ summary: 'Why passports for agents' })
  @ApiOkResponse({ type: PolicyDocumentDto })
  whyIdentyclaw(@RequestId() requestId: string): PolicyDocumentDto {
    return this.policy('why-identyclaw', requestId);
  }

  private policy(name: PolicyName, requestId: string): PolicyDocumentDto {
    const doc = policyDocument(name, this.base);
    return { ...doc, sections: [...doc.sections], ...stamp(requestId) };
  }
}
