/**
 * The tool's version: the repository's package.json `version`, the one the API reports (OpenAPI
 * `info.version`, the root discovery document), so `passport --version` and the server can be compared
 * when a command and a server disagree.
 */
import { readFileSync } from 'node:fs';

// Same depth from apps/cli/src and apps/cli/dist.
const PACKAGE_JSON = new URL('../../../package.json', import.meta.url);

export const CLI_VERSION: string = (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string })
  .version;
