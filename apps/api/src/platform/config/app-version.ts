/**
 * The service version: the `version` of the repository's package.json, read once. It is the OpenAPI
 * `info.version` and the root discovery `version` (spec: Versioning), so the two cannot disagree.
 */
import { readFileSync } from 'node:fs';

// Same depth from apps/api/src/config and apps/api/dist/config.
const PACKAGE_JSON = new URL('../../../../../package.json', import.meta.url);

export const APP_NAME = 'Passport Identity API';
export const APP_VERSION: string = (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string })
  .version;
