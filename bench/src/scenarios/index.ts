import type { Scenario } from '../types';
import { checkoutSubmit } from './checkout-submit';
import { eventLag } from './event-lag';
import { gatewayVsDirect } from './gateway-vs-direct';
import { liveStreams } from './live-streams';
import { machine } from './machine';
import { settlementImport } from './settlement-import';
import { settlementReconciliation } from './settlement-reconciliation';
import { signInLatency } from './sign-in-latency';
import { tracing } from './tracing';
import { webhooks } from './webhooks';

/**
 * Every scenario, in run order. A new one (checkout submit contention, event lag, settlement
 * import) is a module in this folder exporting a Scenario, added here. Tracing restarts every
 * service between its rounds: it runs last, after checkout-submit (the figure it compares with).
 */
export const SCENARIOS: readonly Scenario[] = [machine, gatewayVsDirect, signInLatency, checkoutSubmit, eventLag, settlementImport, liveStreams, webhooks, settlementReconciliation, tracing];
