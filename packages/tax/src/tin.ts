/**
 * Malaysian tax identification numbers (TIN), normalised the way LHDN prints them:
 * upper case, no spaces or dashes. See DESIGN §7.
 *
 * - Individual: `IG` + 9 to 11 digits, digits kept as entered (leading zeros matter).
 * - Non-individual: one of {@link NON_INDIVIDUAL_TIN_PREFIXES} + digits; leading zeros are
 *   dropped and 1 to 12 digits must remain.
 */

export const INDIVIDUAL_TIN_PREFIX = 'IG';

export const NON_INDIVIDUAL_TIN_PREFIXES = [
  'C',
  'CS',
  'D',
  'F',
  'FA',
  'PT',
  'TA',
  'TC',
  'TN',
  'TR',
  'TP',
  'J',
  'LE',
] as const;

export type NonIndividualTinPrefix = (typeof NON_INDIVIDUAL_TIN_PREFIXES)[number];

export type TinKind = 'individual' | 'non_individual';

export type TinResult =
  | { ok: true; value: string; kind: TinKind; prefix: string }
  | { ok: false; reason: string };

const INDIVIDUAL_DIGITS = { min: 9, max: 11 };
const NON_INDIVIDUAL_MAX_DIGITS = 12;

const PREFIX_REASON =
  `TIN must start with ${INDIVIDUAL_TIN_PREFIX} or one of ${NON_INDIVIDUAL_TIN_PREFIXES.join(', ')}`;

function isNonIndividualPrefix(prefix: string): prefix is NonIndividualTinPrefix {
  return (NON_INDIVIDUAL_TIN_PREFIXES as readonly string[]).includes(prefix);
}

function invalid(reason: string): TinResult {
  return { ok: false, reason };
}

/** Upper-cases and removes whitespace and dashes: the form every check below works on. */
function compactTin(input: string): string {
  return input.toUpperCase().replace(/[\s-]/g, '');
}

function leadingLetters(compact: string): string {
  return /^[A-Z]*/.exec(compact)?.[0] ?? '';
}

/**
 * Validates a TIN and returns its normalised form.
 *
 * The prefix is the whole leading run of letters, so "CS1" is prefix CS (never C + "S1") and
 * "FA1" is prefix FA: the longest prefix always wins without any ordering of the prefix list.
 */
export function normaliseTin(input: string): TinResult {
  const compact = compactTin(input);
  if (compact === '') return invalid('TIN is required');

  const prefix = leadingLetters(compact);
  const rest = compact.slice(prefix.length);
  const individual = prefix === INDIVIDUAL_TIN_PREFIX;
  if (!individual && !isNonIndividualPrefix(prefix)) return invalid(PREFIX_REASON);
  if (rest === '') return invalid(`TIN must have digits after the prefix ${prefix}`);
  if (!/^\d+$/.test(rest)) return invalid('TIN may contain only digits after its prefix');

  if (individual) {
    if (rest.length < INDIVIDUAL_DIGITS.min || rest.length > INDIVIDUAL_DIGITS.max) {
      return invalid(
        `An individual TIN must be ${INDIVIDUAL_TIN_PREFIX} followed by ` +
          `${INDIVIDUAL_DIGITS.min} to ${INDIVIDUAL_DIGITS.max} digits`,
      );
    }
    return { ok: true, value: compact, kind: 'individual', prefix };
  }

  const digits = rest.replace(/^0+/, '');
  if (digits === '') return invalid('TIN digits after the prefix cannot all be zeros');
  if (digits.length > NON_INDIVIDUAL_MAX_DIGITS) {
    return invalid(
      `A non-individual TIN must have 1 to ${NON_INDIVIDUAL_MAX_DIGITS} digits after its prefix, ` +
        'leading zeros not counted',
    );
  }
  return { ok: true, value: prefix + digits, kind: 'non_individual', prefix };
}

export function isValidTin(input: string): boolean {
  return normaliseTin(input).ok;
}

export type OptionalTinResult = { ok: true; tin: string | null } | { ok: false; reason: string };

/** A TIN the caller may leave out: absent, null or blank is none; anything else must be valid and is normalised. */
export function normaliseOptionalTin(input: string | null | undefined): OptionalTinResult {
  if (input == null || input.trim() === '') return { ok: true, tin: null };
  const result = normaliseTin(input);
  return result.ok ? { ok: true, tin: result.value } : { ok: false, reason: result.reason };
}
