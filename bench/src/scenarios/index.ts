import type { Scenario } from '../types';
import { checkoutSubmit } from './checkout-submit';
import { eventLag } from './event-lag';
import { gatewayVsDirect } from './gateway-vs-direct';
import { liveStreams } from './live-streams';
import { machine } from './machine';
import { settlementImport } from './settlement-import';
import { settlementReconciliation } from './settlement-reconciliation';
import { signInLatency } from './sign-in-latency';
import { webhooks } from './webhooks';

/**
 * Every scenario, in run order. A new one (checkout submit contention, event lag, settlement
 * import) is a module in this folder exporting a Scenario, added here.
 */
export const SCENARIOS: readonly Scenario[] = [machine, gatewayVsDirect, signInLatency, checkoutSubmit, eventLag, settlementImport, liveStreams, webhooks, settlementReconciliation];
