import { Agent } from 'node:http';
import type { Socket } from 'node:net';
import { sendProblem, signIdentityHeaders } from '@pasar/service-kit';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin, type Plugin } from 'http-proxy-middleware';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import { routeOf } from './gate';
import type { Upstream } from './route-table';
import { UPSTREAM_TIMEOUT_CODE, classifyProxyError, forwardHeaders } from './rules';
import { isInstanceAway, mayRetryElsewhere, startHealthProbe, UpstreamPool } from './upstreams';

type ProxyConfig = Pick<
  GatewayConfig,
  | 'CHECKOUT_URL'
  | 'B2B_URL'
  | 'VENDOR_URL'
  | 'ADMIN_URL'
  | 'UPSTREAM_TIMEOUT_MS'
  | 'UPSTREAM_MAX_SOCKETS'
  | 'IDENTITY_SECRET'
  | 'UPSTREAM_HEALTH_INTERVAL_MS'
  | 'UPSTREAM_RETRY_DOWN_AFTER_MS'
>;

export interface UpstreamProxy {
  /** Mount after the route gate: proxies what the table sends upstream, passes the rest on. */
  middleware: RequestHandler;
  /** Closes the pooled upstream sockets. */
  close(): void;
}

/**
 * Forwards requests to the domain services with http-proxy-middleware over a keep-alive agent.
 * The body is streamed untouched (nothing parses it before); the path is kept as is
 * (/api/v1/...); identity travels in signed headers only.
 */
export function createUpstreamProxy(config: ProxyConfig, log: Logger): UpstreamProxy {
  const agent = new Agent({ keepAlive: true, maxSockets: config.UPSTREAM_MAX_SOCKETS, maxFreeSockets: 64, timeout: 60_000 });
  const poolOptions = { retryDownAfterMs: config.UPSTREAM_RETRY_DOWN_AFTER_MS };
  const pools: Record<Upstream, UpstreamPool> = {
    checkout: new UpstreamPool('checkout', config.CHECKOUT_URL, poolOptions),
    b2b: new UpstreamPool('b2b', config.B2B_URL, poolOptions),
    vendor: new UpstreamPool('vendor', config.VENDOR_URL, poolOptions),
    admin: new UpstreamPool('admin', config.ADMIN_URL, poolOptions),
  };
  const probe = startHealthProbe(Object.values(pools), { intervalMs: config.UPSTREAM_HEALTH_INTERVAL_MS, timeoutMs: 2_000 });
  /** The instance each in-flight request went to, and whether it was already sent again elsewhere. */
  const chosen = new WeakMap<Request, { url: string; retried: boolean }>();

  const proxyFor = (upstream: Upstream) =>
    createProxyMiddleware<Request, Response>({
      target: pools[upstream].urls[0],
      router: (req) => {
        const url = pools[upstream].pick();
        chosen.set(req, { url, retried: chosen.get(req)?.retried ?? false });
        return url;
      },
      agent,
      changeOrigin: true,
      xfwd: true,
      // the default plugins without the logger plugin, which formats a line (parsing a URL) for every
      // proxied response even with no logger; failures are logged by the error handler below
      ejectPlugins: true,
      plugins: [debugProxyErrorsPlugin, proxyEventsPlugin] as Plugin[] as unknown as Plugin<Request, Response>[],
      on: {
        proxyReq: (proxyReq) => {
          proxyReq.setTimeout(config.UPSTREAM_TIMEOUT_MS, () => {
            const err = Object.assign(new Error(`no answer within ${config.UPSTREAM_TIMEOUT_MS} ms`), { code: UPSTREAM_TIMEOUT_CODE });
            proxyReq.destroy(err);
          });
        },
        proxyRes: (_proxyRes, req) => {
          const instance = chosen.get(req);
          if (instance) pools[upstream].markUp(instance.url);
        },
        error: (err, req, res) => {
          const code = (err as NodeJS.ErrnoException).code;
          const instance = chosen.get(req);
          if (instance && isInstanceAway(code, UPSTREAM_TIMEOUT_CODE)) pools[upstream].markDown(instance.url);
          // a refused connection never reached the instance: a request without a body goes to the next one, once
          if (instance && !instance.retried && pools[upstream].urls.length > 1 && mayRetryElsewhere(code, req.method) && isResponse(res) && !res.headersSent) {
            instance.retried = true;
            void proxies[upstream](req, res, () => sendProblem(res, 503, 'service_unavailable', `the ${upstream} service is not reachable; try again`));
            return;
          }
          const failure = classifyProxyError(code, upstream);
          log.warn({ err: err.message, code, upstream, path: req.url, requestId: req.requestId }, 'proxy to upstream failed');
          if (!isResponse(res)) return res.destroy();
          if (res.headersSent) return void res.destroy();
          sendProblem(res, failure.status, failure.code, failure.detail);
        },
      },
    });

  const proxies: Record<Upstream, ReturnType<typeof proxyFor>> = {
    checkout: proxyFor('checkout'),
    b2b: proxyFor('b2b'),
    vendor: proxyFor('vendor'),
    admin: proxyFor('admin'),
  };

  const middleware: RequestHandler = (req, res, next) => {
    const route = routeOf(res);
    if (!route || route.to === 'gateway') return next();
    // the signature covers the method and the path exactly as forwarded (the upstream's req.originalUrl)
    const signed = signIdentityHeaders(config.IDENTITY_SECRET, { method: req.method, path: req.originalUrl }, req.identity, req.requestId);
    req.headers = forwardHeaders(req.headers, signed, req.requestId);
    req.url = req.originalUrl; // keep /api/v1/... (express strips the mount path)
    void proxies[route.to](req, res, next);
  };

  return {
    middleware,
    close: () => {
      probe.stop();
      agent.destroy();
    },
  };
}

function isResponse(res: Response | Socket): res is Response {
  return typeof (res as Response).writeHead === 'function';
}
