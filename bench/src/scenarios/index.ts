import type { Scenario } from '../types';
import { gatewayVsDirect } from './gateway-vs-direct';
import { signInLatency } from './sign-in-latency';

/**
 * Every scenario, in run order. A new one (checkout submit contention, event lag, settlement
 * import) is a module in this folder exporting a Scenario, added here.
 */
export const SCENARIOS: readonly Scenario[] = [gatewayVsDirect, signInLatency];
