/**
 * Bench-only preload for the tracing scenario's probe of async context tracking: an untraced
 * service started with it runs an AsyncLocalStorage once, as tracing's context manager does on the
 * first request it handles, and from then on tracks async context as a traced service does (on
 * Node 20: async hooks on every promise and native handle it makes), yet starts no SDK:
 *
 *   npm run bench -- --only tracing --untraced-env "NODE_OPTIONS=--require $PWD/bench/src/async-context-preload.cjs"
 */
const { AsyncLocalStorage } = require('node:async_hooks');

// kept by Node's list of enabled storages: nothing else need hold it
new AsyncLocalStorage().run({}, () => undefined);
