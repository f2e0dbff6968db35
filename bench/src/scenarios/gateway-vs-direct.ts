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

/** Seconds of warm-up on each side before the measured rounds (JIT, pools, session cache). */
const WARM_UP_S = 5;

/**
 * The figures of one side over its rounds: requests per second over the rounds' whole time, the
 * mean of the rounds' p50 and the worst round's p99 (autocannon gives percentiles, not histograms),
 * and each service's CPU per request over the rounds.
 */
function combined(rounds: { result: autocannon.Result; cpu: Record<string, number> }[]): LoadFigures {
  const requests = rounds.reduce((a, r) => a + r.result.requests.total, 0);
  const seconds = rounds.reduce((a, r) => a + r.result.duration, 0);
  const cpuOf = (service: string) => rounds.reduce((a, r) => a + (r.cpu[service] ?? Number.NaN), 0);
  return {
    url: rounds[0].result.url,
    requestsPerSecond: round(requests / Math.max(seconds, 1e-9), 1),
    latencyP50Ms: round(rounds.reduce((a, r) => a + r.result.latency.p50, 0) / rounds.length),
    latencyP99Ms: round(Math.max(...rounds.map((r) => r.result.latency.p99))),
    requests,
    non2xx: rounds.reduce((a, r) => a + r.result.non2xx, 0),
    errors: rounds.reduce((a, r) => a + r.result.errors, 0),
    timeouts: rounds.reduce((a, r) => a + r.result.timeouts, 0),
    cpuMsPerRequest: { gateway: round(cpuOf('gateway') / Math.max(1, requests), 3), checkout: round(cpuOf('checkout') / Math.max(1, requests), 3) },
  };
}

/**
 * The gateway's cost: GET /account/addresses through the gateway with a customer's cookie, against
 * the same request straight to checkout with identity headers signed as the gateway would (fresh
 * per request: a signature is valid for 60 s). Measured in alternating rounds (direct, gateway,
 * gateway, direct; half the duration each) after a warm-up of both.
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

    log(`warm-up (${WARM_UP_S} s each)`);
    await viaGateway(WARM_UP_S);
    await direct(WARM_UP_S);
    // Alternating rounds, direct-gateway-gateway-direct, half the duration each: a drift over the
    // run (checkout's JIT still warming, a neighbour on the host) weighs on both sides alike
    // instead of on whichever ran first.
    const half = Math.max(1, Math.round(settings.durationS / 2));
    const rounds: { side: 'gateway' | 'direct'; result: autocannon.Result; cpu: Record<string, number> }[] = [];
    for (const side of ['direct', 'gateway', 'gateway', 'direct'] as const) {
      log(`${side}: ${settings.connections} connections, ${half} s`);
      const before = readStack(stack);
      const result = await (side === 'gateway' ? viaGateway(half) : direct(half));
      rounds.push({ side, result, cpu: cpuBetween(before, readStack(stack)).byService });
    }
    const gateway = combined(rounds.filter((r) => r.side === 'gateway'));
    const straight = combined(rounds.filter((r) => r.side === 'direct'));
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
      data: {
        path: PATH,
        connections: settings.connections,
        durationS: settings.durationS,
        gateway,
        direct: straight,
        ratioGatewayToDirect: ratio,
        rounds: rounds.map((r) => ({ side: r.side, requestsPerSecond: round(r.result.requests.total / r.result.duration, 1), latencyP99Ms: r.result.latency.p99 })),
      },
    };
  },
};
