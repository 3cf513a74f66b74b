#!/usr/bin/env node
// Each table belongs to one module (docs/architecture.md): the module that declares it in its tables.ts
// (src/modules/<m>/tables.ts), or the platform (src/platform/db/schema.ts, infrastructure any module may use).
// This check fails when a module's code names a table of another module, in a Kysely call (selectFrom,
// insertInto, updateTable, deleteFrom, mergeInto, the joins) or in a sql`...` template (from, into, update, join,
// using). What a module needs of another's data it reads or changes through that module's index.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const modulesDir = join(root, 'src', 'modules');

/** The `name: Type;` members of `export interface <name> {...}` in `file`. */
function declaredTables(file, interfaceName) {
  const text = readFileSync(file, 'utf8');
  const block = new RegExp(`export interface ${interfaceName} \\{([^}]*)\\}`).exec(text);
  if (block === null) return [];
  return [...block[1].matchAll(/^\s*(\w+)\s*:/gm)].map((match) => match[1]);
}

const owners = new Map();
const claim = (table, owner, file) => {
  if (owners.has(table)) throw new Error(`table ${table} declared by ${owners.get(table)} and by ${owner} (${file})`);
  owners.set(table, owner);
};
for (const table of declaredTables(join(root, 'src', 'platform', 'db', 'schema.ts'), 'PlatformTables')) {
  claim(table, 'platform');
}
const modules = readdirSync(modulesDir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
for (const { name } of modules) {
  let text;
  try {
    text = readFileSync(join(modulesDir, name, 'tables.ts'), 'utf8');
  } catch {
    continue;
  }
  const interfaceName = /export interface (\w+Tables) \{/.exec(text)?.[1];
  if (interfaceName === undefined)
    throw new Error(`src/modules/${name}/tables.ts declares no <Module>Tables interface`);
  for (const table of declaredTables(join(modulesDir, name, 'tables.ts'), interfaceName)) claim(table, name);
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts') && entry.name !== 'tables.ts') yield path;
  }
}

const builderCall =
  /\b(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*\[?\s*'(\w+)/g;
const sqlWord = /\b(from|into|update|join|using)\s+(\w+)/gi;

/** The text of each sql`...` template in `text`, with its offset; `${...}` holes kept (tables are not in them). */
function* sqlTemplates(text) {
  const start = /\bsql(?:<[^`]*?>)?`/g;
  for (let match = start.exec(text); match !== null; match = start.exec(text)) {
    let i = match.index + match[0].length;
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === '\\') i++;
      else if (depth === 0 && c === '`') break;
      else if (c === '$' && text[i + 1] === '{') {
        depth++;
        i++;
      } else if (depth > 0 && c === '}') depth--;
    }
    yield { offset: match.index + match[0].length, body: text.slice(match.index + match[0].length, i) };
    start.lastIndex = i + 1;
  }
}

const violations = [];
for (const { name: module } of modules) {
  for (const file of sourceFiles(join(modulesDir, module))) {
    const text = readFileSync(file, 'utf8');
    const lineOf = (offset) => text.slice(0, offset).split('\n').length;
    const found = (offset, table, how) => {
      const owner = owners.get(table);
      if (owner === undefined || owner === module || owner === 'platform') return;
      violations.push({ file: relative(root, file), line: lineOf(offset), module, table, owner, how });
    };
    for (const match of text.matchAll(builderCall)) found(match.index, match[2], `${match[1]}('${match[2]}')`);
    for (const { offset, body } of sqlTemplates(text)) {
      for (const match of body.matchAll(sqlWord)) {
        found(offset + match.index, match[2], `sql: ${match[1].toLowerCase()} ${match[2]}`);
      }
    }
  }
}

for (const v of violations) {
  console.log(
    `${v.file}:${v.line}: module ${v.module} names table ${v.table}, owned by ${v.owner} (${v.how}); ` +
      `read or change it through src/modules/${v.owner}/index.ts`,
  );
}
if (violations.length > 0) {
  const files = new Set(violations.map((v) => v.file)).size;
  console.log(`check-table-owners: ${violations.length} reference(s) to another module's table in ${files} file(s)`);
  process.exit(1);
}
console.log(`check-table-owners: ${owners.size} tables, ${modules.length} modules, no module names another's table`);
