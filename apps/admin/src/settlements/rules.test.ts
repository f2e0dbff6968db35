import { SETTLEMENT_HEADERS, billingDate, parseSettlementCsv, parseSettlementRow } from './rules';

const A = SETTLEMENT_HEADERS.carrier_a.join(',');
const B = SETTLEMENT_HEADERS.carrier_b.join(',');

describe('billingDate', () => {
  test('carrier_a YYYY-MM-DD, carrier_b DD/MM/YYYY, real days only', () => {
    expect(billingDate('carrier_a', '2026-02-28')).toBe('2026-02-28');
    expect(billingDate('carrier_b', '28/02/2026')).toBe('2026-02-28');
    expect(billingDate('carrier_b', '29/02/2028')).toBe('2028-02-29');
    for (const bad of ['2026-02-30', '2026-13-01', '26-02-01', '28/02/2026', '']) expect(billingDate('carrier_a', bad)).toBeNull();
    for (const bad of ['31/04/2026', '2026-02-28', '1/2/2026', '00/01/2026']) expect(billingDate('carrier_b', bad)).toBeNull();
  });
});

describe('parseSettlementRow', () => {
  test('a good row: trimmed tracking id, ISO date, cost with two decimals', () => {
    expect(parseSettlementRow('carrier_a', [' CA123 ', '2026-11-01', '1.25', '12.5'], 2)).toEqual({
      ok: true,
      row: { trackingId: 'CA123', billedOn: '2026-11-01', actualCost: '12.50', billedKg: '1.250' },
    });
    expect(parseSettlementRow('carrier_b', ['CB-9', '01/11/2026', '3', '7'], 9)).toEqual({
      ok: true,
      row: { trackingId: 'CB-9', billedOn: '2026-11-01', actualCost: '7.00', billedKg: '3.000' },
    });
  });

  test.each([
    [['CA1', '2026-11-01', '1'], 'line 4: expected 4 columns, got 3'],
    [['', '2026-11-01', '1', '2'], 'line 4: Waybill No "" is not a tracking id'],
    [['CA 1', '2026-11-01', '1', '2'], 'line 4: Waybill No "CA 1" is not a tracking id'],
    [['CA1', '01/11/2026', '1', '2'], 'line 4: Billing Date "01/11/2026" is not a date (YYYY-MM-DD)'],
    [['CA1', '2026-11-01', '-1', '2'], 'line 4: Weight (kg) "-1" is not a weight'],
    [['CA1', '2026-11-01', '1', '2.345'], 'line 4: Amount (MYR) "2.345" is not an amount'],
    [['CA1', '2026-11-01', '1', 'RM2'], 'line 4: Amount (MYR) "RM2" is not an amount'],
  ])('%j → %s', (fields, error) => {
    expect(parseSettlementRow('carrier_a', fields, 4)).toEqual({ ok: false, error });
  });
});

describe('parseSettlementCsv', () => {
  test('the header must match exactly and in order', () => {
    for (const header of [B, 'waybill no,Billing Date,Weight (kg),Amount (MYR)', 'Billing Date,Waybill No,Weight (kg),Amount (MYR)', `${A},Extra`, '']) {
      expect(parseSettlementCsv('carrier_a', `${header}\nCA1,2026-11-01,1,2\n`)).toMatchObject({ ok: false, code: 'wrong_header' });
    }
    expect(parseSettlementCsv('carrier_a', `\uFEFF${A}\r\nCA1,2026-11-01,1,2\r\n`)).toMatchObject({ ok: true, total: 1 });
  });

  test('bad rows become parse errors with their line; the rest go on; blank lines are skipped', () => {
    const csv = [A, 'CA1,2026-11-01,1.0,10.00', 'CA2,2026-11-31,1.0,10.00', '', 'CA3,2026-11-02,1.0', 'CA4,"2026-11-03",2,"5"', 'C"A5,2026-11-03,2,5'].join('\n');
    const parsed = parseSettlementCsv('carrier_a', csv);
    expect(parsed).toMatchObject({ ok: true, total: 5 });
    if (!parsed.ok) return;
    expect(parsed.rows.map((r) => r.trackingId)).toEqual(['CA1', 'CA4']);
    expect(parsed.parseErrors).toHaveLength(3);
    expect(parsed.parseErrors).toEqual(
      expect.arrayContaining([
        'line 3: Billing Date "2026-11-31" is not a date (YYYY-MM-DD)',
        'line 5: expected 4 columns, got 3',
        expect.stringMatching(/^line 7: /),
      ]),
    );
  });

  test('line numbers count blank lines, CRLF files and quoted fields that span lines', () => {
    const simple = parseSettlementCsv('carrier_b', [B, 'CB1,01/11/2026,1,1', '', '', 'CB2,1/11/2026,1,1', 'CB3,01/11/2026,1,1', ''].join('\r\n'));
    expect(simple).toMatchObject({ ok: true, total: 3, parseErrors: ['line 5: Invoice Date "1/11/2026" is not a date (DD/MM/YYYY)'] });
    const spanning = parseSettlementCsv('carrier_a', [A, 'CA1,2026-11-01,1,1', '"CA\n2",2026-11-01,1,1', 'CA3,2026-11-01,1,x'].join('\n'));
    expect(spanning).toMatchObject({ ok: true, total: 3 });
    if (!spanning.ok) return;
    expect(spanning.rows.map((r) => r.trackingId)).toEqual(['CA1']);
    expect(spanning.parseErrors).toEqual([expect.stringMatching(/^line 4: Waybill No/), 'line 5: Amount (MYR) "x" is not an amount']);
  });
});
