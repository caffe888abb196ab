#!/usr/bin/env node
// Repoints imports of `@passport/core` names that the curated main entry does not export to the area
// subpath that does (`@passport/core/ports`, `/testing`, …), editing import lines only. For branches
// written against the former `export *` main entry: run it after merging one (`node
// scripts/repoint-core-imports.mjs`), then `npx tsc -p tsconfig.json`. Idempotent; prints the files it
// changed.
import fs from 'node:fs';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import * as prettier from 'prettier';

const W = fileURLToPath(new URL('..', import.meta.url));
const SRC = `${W}libs/passport-core/src/`;
const pcfg = await prettier.resolveConfig(`${W}x.ts`);

// [entry ('.' or the area), exported name] for the main entry and every src/<area>/index.ts.
const entries = ['.', ...fs.readdirSync(SRC).filter((d) => fs.existsSync(`${SRC}${d}/index.ts`))];
const program = ts.createProgram(
  entries.map((e) => (e === '.' ? `${SRC}index.ts` : `${SRC}${e}/index.ts`)),
  {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
  },
);
const checker = program.getTypeChecker();
const rows = [];
for (const e of entries) {
  const sf = program.getSourceFile(e === '.' ? `${SRC}index.ts` : `${SRC}${e}/index.ts`);
  for (const s of checker.getExportsOfModule(checker.getSymbolAtLocation(sf))) rows.push([e, s.name]);
}
const main = new Set(rows.filter((r) => r[0] === '.').map((r) => r[1]));
// Where a name is in several areas, the first of these wins (ports before the record types' own area).
const pref = ['ports', ...entries.filter((e) => e !== '.' && e !== 'ports' && e !== 'node').sort(), 'node'];
const home = new Map();
for (const p of pref) for (const r of rows) if (r[0] === p && !home.has(r[1])) home.set(r[1], p);
const files = execSync(`cd '${W}' && git ls-files 'apps/*.ts' 'test/*.ts' 'bench/*.ts' 'scripts/*.ts'`, {
  encoding: 'utf8',
})
  .trim()
  .split('\n');
const changed = [];
for (const f of files) {
  let src = fs.readFileSync(W + f, 'utf8');
  const sf = ts.createSourceFile(f, src, ts.ScriptTarget.Latest, true);
  const edits = [];
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) && !ts.isExportDeclaration(st)) continue;
    if (!st.moduleSpecifier) continue;
    const spec = st.moduleSpecifier.text;
    let base;
    if (spec === '@passport/core') base = '@passport/core';
    else if (/passport-core\/src\/index\.js$/.test(spec)) base = spec.replace(/index\.js$/, '');
    else continue;
    const isExport = ts.isExportDeclaration(st);
    const clause = isExport ? st.exportClause : st.importClause?.namedBindings;
    if (!clause || !(ts.isNamedImports(clause) || ts.isNamedExports(clause))) {
      if (clause) throw new Error('namespace import in ' + f);
      continue;
    }
    const stmtTypeOnly = isExport ? st.isTypeOnly : st.importClause.isTypeOnly;
    const keep = [],
      moved = new Map(),
      drop = [];
    const els = [...clause.elements];
    els.forEach((e, i) => {
      const name = (e.propertyName ?? e.name).text;
      const txt = e.getText(sf);
      if (main.has(name)) {
        keep.push(e);
        return;
      }
      const h = home.get(name);
      if (!h) throw new Error(`no home for ${name} in ${f}`);
      if (!moved.has(h)) moved.set(h, []);
      moved.get(h).push(txt);
      drop.push(i);
    });
    if (moved.size === 0) continue;
    const kw = isExport ? 'export' : 'import';
    const tOnly = stmtTypeOnly ? ' type' : '';
    const target = (h) => (base === '@passport/core' ? `@passport/core/${h}` : `${base}${h}/index.js`);
    const added = [];
    for (const [h, names] of moved)
      added.push(
        (
          await prettier.format(`${kw}${tOnly} { ${names.join(', ')} } from '${target(h)}';`, {
            ...pcfg,
            parser: 'typescript',
          })
        ).trimEnd(),
      );
    if (!keep.length) {
      edits.push([st.getStart(sf), st.getEnd(), added.join('\n')]);
      continue;
    }
    // Remove each moved element with the separator after it (or, for the last kept position, before it).
    const full = sf.getFullText();
    const dropped = new Set(drop);
    const ranges = [];
    els.forEach((e, i) => {
      if (!dropped.has(i)) return;
      const start = e.getFullStart(); // includes leading trivia (newline + indent)
      let end = e.getEnd();
      const comma = full.indexOf(',', end);
      const close = full.indexOf('}', end);
      if (comma !== -1 && comma < close) end = comma + 1;
      ranges.push([start, end]);
    });
    let text = '';
    let cursor = st.getStart(sf);
    for (const [a, b] of ranges) {
      text += full.slice(cursor, a);
      cursor = b;
    }
    text += full.slice(cursor, st.getEnd());
    // A single-line clause whose first element was dropped keeps "{ , x }" shapes clean; normalise "{ ," and ", }".
    text = text.replace(/\{\s*,/, '{').replace(/\{(\S)/, '{ $1');
    // If the last element was dropped on a one-line import, a trailing comma may remain before "}".
    if (!text.includes('\n')) text = text.replace(/,\s*\}/, ' }');
    if (text.includes('\n')) {
      const pretty = (await prettier.format(text, { ...pcfg, parser: 'typescript' })).trimEnd();
      if (!pretty.includes('\n')) text = pretty;
    }
    edits.push([st.getStart(sf), st.getEnd(), [text, ...added].join('\n')]);
  }
  if (!edits.length) continue;
  for (const [s, e, t] of edits.reverse()) src = src.slice(0, s) + t + src.slice(e);
  fs.writeFileSync(W + f, src);
  changed.push(f);
}
console.log(changed.join('\n'));
