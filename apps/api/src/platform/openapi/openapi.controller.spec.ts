/**
 * Where the deprecated `/api/v1/openapi.json` moves: `/openapi.json` under PUBLIC_BASE_URL's path, never
 * another host (a review: a path starting `//` made the Location protocol-relative, `//evil.example/…`).
 */
import { type AppConfig } from '../config/app-config.js';
import { type OpenApiDocumentService } from './openapi-document.service.js';
import { OpenApiController } from './openapi.controller.js';

const locationFor = (publicBaseUrl: string) =>
  new OpenApiController({} as OpenApiDocumentService, { publicBaseUrl } as AppConfig).legacyOpenapi().url;

it.each([
  ['http://localhost:3000', '/openapi.json'],
  ['http://h:1/', '/openapi.json'],
  ['https://example.com/passport', '/passport/openapi.json'],
  ['http://h:1/a/b/', '/a/b/openapi.json'],
  ['http://h:1//evil.example', '/evil.example/openapi.json'],
  ['http://h:1///x//', '/x/openapi.json'],
])('PUBLIC_BASE_URL %s moves it to %s', (base, location) => {
  expect(locationFor(base)).toBe(location);
});
