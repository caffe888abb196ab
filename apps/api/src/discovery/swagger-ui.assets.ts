/**
 * The Swagger UI files served under `/docs`, read from the installed `swagger-ui-dist` package (no
 * CDN, works offline). Only this fixed list is served, so no request path ever reaches the file system.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const SWAGGER_UI_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const distDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const cache = new Map<string, Buffer>();

/** Contents of one whitelisted asset, or undefined for any other name. */
export function swaggerUiAsset(name: string): { body: Buffer; type: string } | undefined {
  if (!Object.prototype.hasOwnProperty.call(SWAGGER_UI_ASSETS, name)) return undefined;
  let body = cache.get(name);
  if (!body) {
    body = readFileSync(path.join(distDir, name));
    cache.set(name, body);
  }
  return { body, type: SWAGGER_UI_ASSETS[name] };
}

// Paths relative to the page (/docs), so that the page works under a proxy's path prefix too
// (PUBLIC_BASE_URL with a path); no online validator (its badge is an image from another origin, which
// the page's CSP refuses, and it would send the document's URL away).
export const DOCS_INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    validatorUrl: null,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
});
`;

export const DOCS_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Passport Identity API: documentation</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/swagger-ui-standalone-preset.js"></script>
  <script src="docs/docs-init.js"></script>
</body>
</html>
`;
