#!/usr/bin/env node
// The built `passport` tool (npm run build); `npm run passport -- …` runs the sources with tsx instead.
import '../dist/main.js';
