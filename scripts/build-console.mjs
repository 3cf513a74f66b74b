#!/usr/bin/env node
// The console (console/, issue 45) as static files: one JavaScript bundle and one stylesheet with content-hashed
// names (served as immutable), an index.html naming them, each beside its gzip copy, and manifest.json listing what
// the service may serve. esbuild bundles Preact, the SDK (sdk/src, openapi-fetch) and the pages in well under a
// second: the toolchain is the one `npm run build` already uses, with no second bundler to install.
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** The URL path the assets are served under, whichever of /consola and /console the page was opened at. */
export const assetsPath = '/consola/assets';

/** Builds the console of the project at `root` into `outdir` (dist/console by default); returns the manifest. */
export async function buildConsole(root, outdir = join(root, 'dist', 'console')) {
  const result = await build({
    entryPoints: [join(root, 'console/src/main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(root, 'console/tsconfig.json'),
    entryNames: '[name]-[hash]',
    outdir: join(outdir, 'assets'),
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, 'assets'), { recursive: true });
  const assets = {};
  for (const file of result.outputFiles) {
    writeFileSync(file.path, file.contents);
    writeFileSync(`${file.path}.gz`, gzipSync(file.contents, { level: 9 }));
    assets[basename(file.path)] = {
      type: file.path.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
      sha256: createHash('sha256').update(file.contents).digest('hex'),
    };
  }
  const named = (extension) => Object.keys(assets).find((name) => name.endsWith(extension));
  const html =
    '<!doctype html>\n<html lang="es">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    '<title>Consola · ecf-service</title>\n' +
    // No icon to fetch (a browser would ask for /favicon.ico and log its 404).
    '<link rel="icon" href="data:,">\n' +
    `<link rel="stylesheet" href="${assetsPath}/${named('.css')}">\n` +
    `<script type="module" src="${assetsPath}/${named('.js')}"></script>\n` +
    '</head>\n<body>\n<div id="app"></div>\n</body>\n</html>\n';
  writeFileSync(join(outdir, 'index.html'), html);
  writeFileSync(join(outdir, 'index.html.gz'), gzipSync(html, { level: 9 }));
  const manifest = { assets };
  writeFileSync(join(outdir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

// `node scripts/build-console.mjs [outdir]`
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  await buildConsole(process.cwd(), process.argv[2] ?? undefined);
