import { performance } from 'node:perf_hooks';
import { signUpCustomer } from '../http';
import { percentile, round } from '../stats';
import type { BenchContext, Scenario, ScenarioResult } from '../types';

/** Sequential sign-ins of one customer: the cost of argon2id verification plus a session write. */
export const signInLatency: Scenario = {
  name: 'signInLatency',
  title: 'POST /auth/sign-in latency (sequential)',
  env: {
    // the limits protect real users; here one address signs in hundreds of times
    gateway: { SIGN_IN_LIMIT_PER_EMAIL: '1000000', SIGN_IN_LIMIT_PER_EMAIL_IP: '1000000', SIGN_IN_LIMIT_PER_IP: '1000000' },
  },
  async run({ stack, settings, log }: BenchContext): Promise<ScenarioResult> {
    const customer = await signUpCustomer(stack.gatewayUrl, 'signin');
    const body = JSON.stringify({ email: customer.email, password: customer.password });
    const signIn = async () => {
      const started = performance.now();
      const response = await fetch(`${stack.gatewayUrl}/api/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await response.arrayBuffer();
      const elapsed = performance.now() - started;
      if (response.status !== 200) throw new Error(`sign-in answered ${response.status}`);
      return elapsed;
    };
    for (let i = 0; i < 5; i += 1) await signIn(); // warm-up
    log(`${settings.samples} sequential sign-ins`);
    const samples: number[] = [];
    for (let i = 0; i < settings.samples; i += 1) samples.push(await signIn());
    const p50 = round(percentile(samples, 50));
    const p99 = round(percentile(samples, 99));
    const mean = round(samples.reduce((a, b) => a + b, 0) / samples.length);
    return {
      rows: [{ scenario: 'sign-in latency', case: `${samples.length} sequential`, values: { 'p50 ms': p50, 'p99 ms': p99, 'mean ms': mean, 'max ms': round(Math.max(...samples)) } }],
      data: { samples: samples.length, p50Ms: p50, p99Ms: p99, meanMs: mean, maxMs: round(Math.max(...samples)), minMs: round(Math.min(...samples)) },
    };
  },
};
