import { LABEL_URL_TTL_MS, checkLabelUrl, labelKeyOf, labelSignature, signedLabelUrl } from './rules';
import { isStorageKey } from './storage';
import { isPdf, textPdf } from './pdf';

const KEY = 'a-label-signing-key-for-tests';
const SHIPMENT = '5b1d2c4e-7f80-4a9b-8c1d-2e3f4a5b6c7d';
const NOW = new Date('2026-11-24T10:00:00.000Z');

function parts(url: string): { path: string; expires: string; signature: string } {
  const parsed = new URL(url, 'http://x');
  return { path: parsed.pathname, expires: parsed.searchParams.get('expires') ?? '', signature: parsed.searchParams.get('signature') ?? '' };
}

describe('signed label URLs', () => {
  test('live one hour, relative to the API base, and verify', () => {
    const { url, expiresAt } = signedLabelUrl(KEY, '/api/v1', SHIPMENT, NOW);
    expect(expiresAt.getTime() - NOW.getTime()).toBe(LABEL_URL_TTL_MS);
    const { path, expires, signature } = parts(url);
    expect(path).toBe(`/api/v1/shipment-labels/${SHIPMENT}`);
    expect(checkLabelUrl(KEY, SHIPMENT, expires, signature, NOW)).toEqual({ ok: true });
    expect(checkLabelUrl(KEY, SHIPMENT, expires, signature, new Date(expiresAt.getTime() - 1000))).toEqual({ ok: true });
    expect(signedLabelUrl(KEY, 'https://api.example/api/v1/', SHIPMENT, NOW).url).toMatch(/^https:\/\/api\.example\/api\/v1\/shipment-labels\//);
  });

  test('an expired URL is refused as expired', () => {
    const { url, expiresAt } = signedLabelUrl(KEY, '/api/v1', SHIPMENT, NOW);
    const { expires, signature } = parts(url);
    expect(checkLabelUrl(KEY, SHIPMENT, expires, signature, expiresAt)).toMatchObject({ ok: false, code: 'label_url_expired' });
  });

  test('a tampered expiry, shipment, signature or key is refused as invalid', () => {
    const { url } = signedLabelUrl(KEY, '/api/v1', SHIPMENT, NOW);
    const { expires, signature } = parts(url);
    const later = String(Number(expires) + 3600);
    const flipped = (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1);
    const other = '5b1d2c4e-7f80-4a9b-8c1d-2e3f4a5b6c7e';
    for (const [shipment, exp, sig, key] of [
      [SHIPMENT, later, signature, KEY],
      [other, expires, signature, KEY],
      [SHIPMENT, expires, flipped, KEY],
      [SHIPMENT, expires, signature.slice(0, 10), KEY],
      [SHIPMENT, expires, signature, 'another-key-entirely'],
      [SHIPMENT, 'soon', signature, KEY],
    ]) {
      expect(checkLabelUrl(key, shipment, exp, sig, NOW)).toMatchObject({ ok: false, code: 'label_url_invalid' });
    }
    expect(labelSignature(KEY, SHIPMENT, 1)).not.toBe(labelSignature(KEY, SHIPMENT, 2));
  });
});

describe('storage keys and PDFs', () => {
  test('label keys are storage keys; traversal is not', () => {
    expect(isStorageKey(labelKeyOf(SHIPMENT))).toBe(true);
    for (const bad of ['../etc/passwd', 'labels/../../x', '/abs', 'a//b', '', 'labels/.hidden/..']) expect(isStorageKey(bad)).toBe(false);
  });

  test('textPdf makes a PDF whose xref offsets point at its objects', () => {
    const pdf = textPdf(['Tracking ABC-123', 'with (parens) and \\ backslash']);
    expect(isPdf(pdf)).toBe(true);
    const text = pdf.toString('latin1');
    const xrefAt = Number(/startxref\n(\d+)/.exec(text)?.[1]);
    expect(text.slice(xrefAt, xrefAt + 4)).toBe('xref');
    const offsets = [...text.slice(xrefAt).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(offsets).toHaveLength(5);
    offsets.forEach((offset, i) => expect(text.slice(offset, offset + 7)).toBe(`${i + 1} 0 obj`));
    expect(isPdf(Buffer.from('not a pdf'))).toBe(false);
  });
});
