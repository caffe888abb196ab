// `node --import tsx --import ./record-loads.mjs …`: records which modules the process loads (see the hooks
// file). Registered after tsx, so it sees the URLs tsx resolves.
import { register } from 'node:module';

register('./record-loads.hooks.mjs', import.meta.url);
