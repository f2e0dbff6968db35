import autocannon from 'autocannon';
import { signFor } from '@pasar/testkit';
import { call, signUpCustomer } from '../http';
import { cpuBetween, readStack } from '../processes';
import { round } from '../stats';
import type { BenchContext, Scenario, ScenarioResult } from '../types';

const PATH = '/api/v1/account/addresses';

interface LoadFigures {
  url: string;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Process CPU time per request of the gateway and of checkout over the run. */
  cpuMsPerRequest: { gateway: number; checkout: number };
}

function figures(result: autocannon.Result, cpu: Record<string, number>): LoadFigures {
  const perRequest = (service: string) => round((cpu[service] ?? Number.NaN) / Math.max(1, result.requests.total), 3);
  return {
    url: result.url,
    requestsPerSecond: round(result.requests.average, 1),
    latencyP50Ms: round(result.latency.p50),
    latencyP99Ms: round(result.latency.p99),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    cpuMsPerRequest: { gateway: perRequest('gateway'), checkout: perRequest('checkout') },
  };
}

/**
 * The gateway's cost: GET /account/addresses through the gateway with a customer's cookie, against
 * the same request straight to checkout with identity headers signed as the gateway would (fresh
 * per request: a signature is valid for 60 s).
 */
export const gatewayVsDirect: Scenario = {
  name: 'gatewayVsDirect',
  title: 'GET /account/addresses: gateway vs direct to checkout',
  async run({ stack, settings, log }: BenchContext): Promise<ScenarioResult> {
    const customer = await signUpCustomer(stack.gatewayUrl, 'load');
    for (const label of ['Home', 'Office', 'Parents']) {
      await call(
        `${stack.gatewayUrl}${PATH}`,
        {
          method: 'POST',
          cookie: customer.cookie,
          body: { label, full_name: 'Bench Customer', phone: '+60123456789', address_line_1: `${label} 1, Jalan Bench`, city: 'Kuala Lumpur', postcode: '50450', state: 'WP' },
        },
        201,
      );
    }
    const identity = { userId: customer.user.id, role: 'customer' as const, email: customer.email };
    const common = { connections: settings.connections, duration: settings.durationS, timeout: 10 };

    const viaGateway = (duration: number) =>
      autocannon({ ...common, duration, url: `${stack.gatewayUrl}${PATH}`, headers: { cookie: customer.cookie } });
    const direct = (duration: number) =>
      autocannon({
        ...common,
        duration,
        url: `${stack.services.checkout.url}${PATH}`,
        requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...signFor(request.method ?? 'GET', PATH, identity, stack.identitySecret) } }) }],
      });

    log('warm-up (2 s each)');
    await viaGateway(2);
    await direct(2);
    const measured = async (run: () => Promise<autocannon.Result>): Promise<LoadFigures> => {
      const before = readStack(stack);
      const result = await run();
      return figures(result, cpuBetween(before, readStack(stack)).byService);
    };
    log(`gateway: ${settings.connections} connections, ${settings.durationS} s`);
    const gateway = await measured(() => viaGateway(settings.durationS));
    log(`direct: ${settings.connections} connections, ${settings.durationS} s`);
    const straight = await measured(() => direct(settings.durationS));
    const ratio = round(gateway.requestsPerSecond / straight.requestsPerSecond, 3);

    const row = (name: string, f: LoadFigures) => ({
      scenario: 'gateway vs direct',
      case: name,
      values: {
        'req/s': f.requestsPerSecond,
        'p50 ms': f.latencyP50Ms,
        'p99 ms': f.latencyP99Ms,
        requests: f.requests,
        'non-2xx': f.non2xx,
        errors: f.errors + f.timeouts,
        'cpu ms/req gateway': f.cpuMsPerRequest.gateway,
        'cpu ms/req checkout': f.cpuMsPerRequest.checkout,
      },
    });
    return {
      rows: [row('via gateway', gateway), row('direct to checkout', straight), { scenario: 'gateway vs direct', case: 'ratio gateway/direct', values: { 'req/s': ratio } }],
      data: { path: PATH, connections: settings.connections, durationS: settings.durationS, gateway, direct: straight, ratioGatewayToDirect: ratio },
    };
  },
};
