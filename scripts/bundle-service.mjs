#!/usr/bin/env node
// Bundles one service for its container image (the Dockerfile's build stage runs it after the
// service's `npm run build` has generated its Prisma client):
//   node scripts/bundle-service.mjs <gateway|checkout|b2b|vendor|admin|notifier> <outDir>
// <outDir> becomes the image's /app:
//   dist/main.js          the service, the workspace packages and every pure-JS dependency
//                         (the generated Prisma client and its runtime included), one CommonJS file
//   dist/migrate.js       applies the migrations and exits (packages/service-kit/src/migrate-main.ts)
//   dist/healthcheck.sh   the image's HEALTHCHECK: GET /readyz with bash (scripts/healthcheck.sh)
//   dist/tracing-sdk.js   the OpenTelemetry SDK, loaded only when tracing is on, through
//   dist/otel-*.js        one facade per package the service imports dynamically
//   dist/*.wasm           Prisma's query compiler, read from the file rather than kept as source
//   prisma/migrations/    the service's migrations   (its code reads <dist>/../prisma/migrations)
//   migrations/           @pasar/bus's migrations    (<dist>/../migrations)
//   dist/assets/          the gateway's API reference page files (<dist>/assets)
//   node_modules/         only what cannot be bundled, installed by npm from the versions in
//                         package-lock.json: native addons, and pg and express (the tracing
//                         instrumentations patch them as they load, which a bundled copy never
//                         does); and Scalar's browser bundle (a file the gateway serves at /docs)
// Why a bundle rather than tsc per package: the workspace packages export TypeScript sources, and
// a pruned production install would still bring each dependency's whole package (Prisma's CLI and
// engines, typings, the other services' dependencies); one esbuild file keeps the runtime to the
// code that runs, starts fast (one file to read) and leaves a node_modules of a few megabytes.
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const SERVICES = { gateway: 8080, checkout: 4001, b2b: 4002, vendor: 4003, admin: 4004, notifier: 4005 };
/** Packages left out of the bundle and installed into node_modules: native addons. */
const NATIVE = ['@node-rs/argon2'];
/**
 * Packages left out of the bundle and installed into node_modules so that tracing sees them: the
 * OpenTelemetry instrumentations (service-kit's trace.ts) patch a package when `require` loads it
 * by name, which never happens to code bundled into main.js. Only those the bundle imports are
 * installed (each with its own dependencies: about 2.7 MB for both, less what main.js no longer holds).
 */
const INSTRUMENTED = ['pg', 'express'];
/** Optional requires that are never installed (pg's native binding); left as `require` calls that throw. */
const NEVER_INSTALLED = ['pg-native'];

const [app, outArg] = process.argv.slice(2);
if (!(app in SERVICES) || !outArg) {
  console.error(`usage: node scripts/bundle-service.mjs <${Object.keys(SERVICES).join('|')}> <outDir>`);
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const appDir = join(root, 'apps', app);
const out = resolve(outArg);
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'dist'), { recursive: true });

const appRequire = createRequire(join(appDir, 'package.json'));
const appDeps = Object.keys(JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')).dependencies ?? {});
const native = NATIVE.filter((name) => appDeps.includes(name));

/**
 * Prisma's query compiler ships as a module holding the WebAssembly as one base64 string (4.6 MB).
 * Bundled, that string is part of the script's source, which V8 keeps for the process's life: the
 * bundle instead reads the .wasm file, written next to it, when the client first needs it.
 */
const prismaWasmFromFile = {
  name: 'prisma-wasm-from-file',
  setup(b) {
    b.onResolve({ filter: /query_compiler_[a-z]+_bg\.[a-z]+\.wasm-base64\.js$/ }, (args) => ({
      path: createRequire(join(args.resolveDir, 'index.js')).resolve(args.path),
      namespace: 'prisma-wasm',
    }));
    b.onLoad({ filter: /.*/, namespace: 'prisma-wasm' }, (args) => {
      const file = basename(args.path).replace('.wasm-base64.js', '.wasm');
      writeFileSync(join(out, 'dist', file), Buffer.from(createRequire(args.path)(args.path).wasm, 'base64'));
      return {
        contents: `module.exports = { get wasm() { return require('fs').readFileSync(require('path').join(__dirname, ${JSON.stringify(file)})).toString('base64'); } };`,
        loader: 'js',
      };
    });
  },
};

/**
 * The OpenTelemetry SDK and instrumentations load only when tracing is on
 * (packages/service-kit/src/trace.ts imports them dynamically). Every dynamic import of an
 * `@opentelemetry/` package, as the build meets it, becomes a small `dist/otel-<package>.js`
 * that answers that package from one bundle of them all, `dist/tracing-sdk.js` (so what they
 * share is there once). A service without tracing neither parses nor keeps their source.
 */
const tracingPackages = new Set();
const tracingName = (pkg) => pkg.replace('@opentelemetry/', '');
/** A package's namespace in tracing-sdk.js: its name as an identifier. */
const identifierOf = (pkg) => tracingName(pkg).replace(/[^A-Za-z0-9]/g, '_');
const tracingSdkApart = {
  name: 'tracing-sdk-apart',
  setup(b) {
    b.onResolve({ filter: /^@opentelemetry\// }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      tracingPackages.add(args.path);
      return { path: `./otel-${tracingName(args.path)}.js`, external: true };
    });
  },
};

const result = await build({
  // main.js: the service; migrate.js: the migration Job's entry (deploy/k8s), run as
  // `node dist/migrate.js prisma/migrations`
  entryPoints: [
    { in: join(appDir, 'src', 'main.ts'), out: 'main' },
    { in: join(root, 'packages', 'service-kit', 'src', 'migrate-main.ts'), out: 'migrate' },
  ],
  outdir: join(out, 'dist'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: [...native, ...INSTRUMENTED, ...INSTRUMENTED.map((name) => `${name}/*`), ...NEVER_INSTALLED],
  // class and function names stay: errors, logs and Prisma's error classes use them
  keepNames: true,
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  sourcemap: false,
  metafile: true,
  logLevel: 'warning',
  // CommonJS dependencies that read import.meta.url through tsx-style ESM get the file's URL
  define: { 'import.meta.url': 'importMetaUrl' },
  banner: { js: 'const importMetaUrl = require("url").pathToFileURL(__filename).href;' },
  plugins: [prismaWasmFromFile, tracingSdkApart],
});
await build({
  stdin: {
    contents: [...tracingPackages].sort().map((pkg) => `export * as ${identifierOf(pkg)} from '${pkg}';`).join('\n'),
    resolveDir: join(root, 'packages', 'service-kit'),
    loader: 'js',
  },
  outfile: join(out, 'dist', 'tracing-sdk.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  keepNames: true,
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// one `exports.<name> = ` line per export: node's import() of a CommonJS file finds its names in such lines
const tracingSdk = createRequire(import.meta.url)(join(out, 'dist', 'tracing-sdk.js'));
for (const pkg of tracingPackages) {
  const names = Object.keys(tracingSdk[identifierOf(pkg)]).filter((name) => name !== 'default');
  const lines = [`const p = require('./tracing-sdk.js').${identifierOf(pkg)};`, ...names.map((name) => `exports.${name} = p.${name};`)];
  writeFileSync(join(out, 'dist', `otel-${tracingName(pkg)}.js`), `${lines.join('\n')}\n`);
}
cpSync(join(root, 'scripts', 'healthcheck.sh'), join(out, 'dist', 'healthcheck.sh'));

cpSync(join(appDir, 'prisma', 'migrations'), join(out, 'prisma', 'migrations'), { recursive: true });
cpSync(join(root, 'packages', 'bus', 'migrations'), join(out, 'migrations'), { recursive: true });
// the instrumented packages the bundle imports (main.js or migrate.js), by the metafile
const importedPackages = new Set(Object.values(result.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path.split('/')[0])));
const installed = [...native, ...INSTRUMENTED.filter((name) => importedPackages.has(name))];
// at the versions the monorepo's install resolved (package-lock.json)
const dependencies = Object.fromEntries(installed.map((name) => [name, JSON.parse(readFileSync(appRequire.resolve(`${name}/package.json`), 'utf8')).version]));
writeFileSync(join(out, 'package.json'), `${JSON.stringify({ name: `@pasar/${app}-image`, private: true, dependencies }, null, 2)}\n`);
if (installed.length) {
  execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--no-package-lock', '--prefer-offline'], { cwd: out, stdio: 'inherit' });
  // what node never reads (typings, TypeScript sources, source maps, read-mes and change logs): a
  // third of what npm installs for pg and express; the licences stay
  for (const file of readdirSync(join(out, 'node_modules'), { recursive: true })) {
    if (/\.([cm]?ts|map)$|(^|\/)(readme|changelog|history)(\.\w+)?$/i.test(file)) rmSync(join(out, 'node_modules', file), { force: true });
  }
}

// after npm install, which would remove a package it did not install
if (app === 'gateway') {
  cpSync(join(appDir, 'src', 'docs', 'assets'), join(out, 'dist', 'assets'), { recursive: true });
  const scalar = join('@scalar', 'api-reference', 'dist', 'browser', 'standalone.js');
  const scalarFile = appRequire.resolve.paths(scalar).map((dir) => join(dir, scalar)).find((file) => existsSync(file));
  if (scalarFile) {
    mkdirSync(dirname(join(out, 'node_modules', scalar)), { recursive: true });
    cpSync(scalarFile, join(out, 'node_modules', scalar));
  }
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const bundleBytes = statSync(join(out, 'dist', 'main.js')).size;
const inputs = Object.keys(result.metafile.inputs).length;
console.log(`bundle-service: ${app}: dist/main.js ${mb(bundleBytes)} from ${inputs} files; external: ${[...installed, ...NEVER_INSTALLED].join(', ')}; out ${relative(process.cwd(), out) || out}`);
