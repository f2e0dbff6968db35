import type { ReconciliationFlag, ReconciliationStatus } from '@pasar/contracts';

/**
 * Carrier settlement reconciliation as pure functions. Money is whole cents and weight whole grams
 * (integers), so sums and tolerances are exact; strings only at the edge.
 */

/** How far a bill may exceed what was expected before it is flagged (config; defaults in config.ts). */
export interface Tolerances {
  /** weight_over: billed more than max(weightGrams, weightPercent % of the billable weight) over it. */
  weightGrams: number;
  weightPercent: number;
  /** cost_over: billed more than max(costCents, costPercent % of the expected cost) over it. */
  costCents: number;
  costPercent: number;
  /** unbilled: shipped more than this long ago (ms) and never billed. */
  unbilledAfterMs: number;
}

export const DEFAULT_TOLERANCES: Tolerances = { weightGrams: 100, weightPercent: 5, costCents: 50, costPercent: 2, unbilledAfterMs: 45 * 86_400_000 };

/** A parcel's bills folded: how many, the largest amount, the heaviest billed weight. */
export interface BillFold {
  count: number;
  largestCents: number | null;
  heaviestGrams: number | null;
}

/** The fold of bill lines (what the reconciliation query computes per tracking id with count and max). */
export function foldBills(bills: readonly { cents: number; grams: number | null }[]): BillFold {
  return { count: bills.length, largestCents: maxOf(bills.map((bill) => bill.cents)), heaviestGrams: maxOf(bills.map((bill) => bill.grams)) };
}

/** Everything known about one parcel (tracking id): the booking's expectation, the bills, the shipment. */
export interface ParcelFacts {
  /** A shipment has this tracking id (tracking index). */
  known: boolean;
  declaredGrams: number | null;
  volumetricGrams: number | null;
  expectedCents: number | null;
  /** Every bill line for this tracking id, across files and billing dates, folded (SQL folds them the same way). */
  bills: BillFold;
  shipmentStatus: string | null;
  shippedAt: Date | null;
}

/** The weight a carrier may charge: the larger of declared and volumetric (null when neither is known). */
export function billableGrams(facts: Pick<ParcelFacts, 'declaredGrams' | 'volumetricGrams'>): number | null {
  if (facts.declaredGrams === null) return facts.volumetricGrams;
  if (facts.volumetricGrams === null) return facts.declaredGrams;
  return Math.max(facts.declaredGrams, facts.volumetricGrams);
}

/** Over by more than max(absolute, percent % of base)? Integer arithmetic: `over * 100 > base * percent`. */
export function exceeds(actual: number, base: number, absolute: number, percent: number): boolean {
  const over = actual - base;
  return over > absolute && over * 100 > base * percent;
}

/** The flags of one parcel, in RECONCILIATION_FLAGS order. */
export function flagsOf(facts: ParcelFacts, tolerances: Tolerances, now: Date): ReconciliationFlag[] {
  const flags: ReconciliationFlag[] = [];
  const billed = facts.bills.count > 0;
  const billable = billableGrams(facts);
  const billedGrams = facts.bills.heaviestGrams;
  if (billable !== null && billedGrams !== null && exceeds(billedGrams, billable, tolerances.weightGrams, tolerances.weightPercent)) flags.push('weight_over');
  const largestBill = facts.bills.largestCents;
  if (facts.expectedCents !== null && largestBill !== null && exceeds(largestBill, facts.expectedCents, tolerances.costCents, tolerances.costPercent)) flags.push('cost_over');
  if (facts.bills.count > 1) flags.push('duplicate_bill');
  if (billed && !facts.known) flags.push('unknown_parcel');
  if (billed && facts.shipmentStatus === 'cancelled') flags.push('billed_cancelled');
  if (!billed && facts.shipmentStatus !== 'cancelled' && facts.shippedAt !== null && now.getTime() - facts.shippedAt.getTime() > tolerances.unbilledAfterMs) {
    flags.push('unbilled');
  }
  return flags;
}

function maxOf(values: (number | null)[]): number | null {
  let max: number | null = null;
  for (const value of values) if (value !== null && (max === null || value > max)) max = value;
  return max;
}

/** Where a line stands: the latest administrator action, else whether anything is flagged. */
export function statusOf(flags: readonly ReconciliationFlag[], lastAction: 'dispute' | 'resolve' | null): ReconciliationStatus {
  if (lastAction === 'resolve') return 'resolved';
  if (lastAction === 'dispute') return 'disputed';
  return flags.length > 0 ? 'open' : 'ok';
}

export type Refusal<C extends string> = { ok: false; code: C; detail: string };

/** A resolved line is final: neither disputed nor resolved again. */
export function actionAllowed(status: ReconciliationStatus): { ok: true } | Refusal<'already_resolved'> {
  return status === 'resolved' ? { ok: false, code: 'already_resolved', detail: 'the line was resolved already' } : { ok: true };
}

/**
 * Volumetric weight in grams of parcels with dimensions: Σ quantity × L × W × H (cm³) / divisor
 * (cm³ per kg), rounded up to the gram. Null when any parcel lacks a dimension (unknown, not zero).
 */
export function volumetricGrams(parcels: { quantity: number; dimensionsCm?: { lengthCm: string; widthCm: string; heightCm: string } | null | undefined }[], divisor: number): number | null {
  if (parcels.length === 0) return null;
  let cubicCm = 0;
  for (const parcel of parcels) {
    if (!parcel.dimensionsCm) return null;
    const { lengthCm, widthCm, heightCm } = parcel.dimensionsCm;
    cubicCm += parcel.quantity * Number(lengthCm) * Number(widthCm) * Number(heightCm);
  }
  return Math.ceil((cubicCm * 1000) / divisor - 1e-9);
}

/** Declared weight in grams: Σ quantity × weight; null when any parcel has no weight. */
export function declaredGrams(parcels: { quantity: number; weightKg: string | null }[]): number | null {
  if (parcels.length === 0) return null;
  let grams = 0;
  for (const parcel of parcels) {
    if (parcel.weightKg === null) return null;
    grams += parcel.quantity * gramsOf(parcel.weightKg);
  }
  return grams;
}

/** '12.50' → 1250, '-0.3' → -30 (at most two decimals). */
export function centsOf(amount: string): number {
  const negative = amount.startsWith('-');
  const [whole, fraction = ''] = (negative ? amount.slice(1) : amount).split('.');
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
  return negative ? -cents : cents;
}

/** 1250 → '12.50', -30 → '-0.30'. */
export function moneyOf(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** '1.25' → 1250 (at most three decimals). */
export function gramsOf(kg: string): number {
  const [whole, fraction = ''] = kg.split('.');
  return Number(whole) * 1000 + Number(fraction.padEnd(3, '0').slice(0, 3));
}

/** 1250 → '1.250'. */
export function kgOf(grams: number): string {
  return `${Math.floor(grams / 1000)}.${String(grams % 1000).padStart(3, '0')}`;
}
