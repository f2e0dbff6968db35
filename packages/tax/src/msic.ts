/** Malaysia Standard Industrial Classification (MSIC 2008) codes: exactly five digits. */

export type MsicResult = { ok: true; value: string } | { ok: false; reason: string };

const MSIC_LENGTH = 5;

/** Removes all whitespace and checks for exactly five digits; the value is the 5-digit string. */
export function normaliseMsic(input: string): MsicResult {
  const compact = input.replace(/\s/g, '');
  if (compact === '') return { ok: false, reason: 'MSIC code is required' };
  if (!/^\d+$/.test(compact) || compact.length !== MSIC_LENGTH) {
    return { ok: false, reason: `MSIC code must be exactly ${MSIC_LENGTH} digits` };
  }
  return { ok: true, value: compact };
}

export function isValidMsic(input: string): boolean {
  return normaliseMsic(input).ok;
}
