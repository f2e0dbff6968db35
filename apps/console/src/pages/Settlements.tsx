import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { useAction, useLoad } from '../hooks';
import { DataTable, ErrorBox, Loading, Section, type Column } from '../ui';

type Carrier = 'carrier_a' | 'carrier_b';
type Flag = Schemas['ReconciliationLine']['flags'][number];
type Line = Schemas['ReconciliationLine'];
type ImportResult = Schemas['SettlementImportResult'];

const FLAGS: Flag[] = ['weight_over', 'cost_over', 'duplicate_bill', 'unknown_parcel', 'billed_cancelled', 'unbilled'];

function Upload({ onImported }: { onImported: () => void }) {
  const [carrier, setCarrier] = useState<Carrier>('carrier_a');
  const [file, setFile] = useState<File | null>(null);
  const [result, setResult] = useState<ImportResult>();
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    void run(async () => {
      const csvText = await file.text();
      setResult(unwrap(await api.POST('/admin/shipping/settlements/import', { body: { carrier, csvText } })));
    }, onImported);
  };
  return (
    <Section title="Upload a settlement file">
      <form onSubmit={submit} className="row">
        <label>
          Carrier
          <select value={carrier} onChange={(e) => setCarrier(e.target.value as Carrier)}>
            <option value="carrier_a">carrier_a</option>
            <option value="carrier_b">carrier_b</option>
          </select>
        </label>
        <label>
          CSV file
          <input type="file" accept=".csv,text/csv" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        </label>
        <button type="submit" disabled={busy || !file}>
          {busy ? 'Importing…' : 'Import'}
        </button>
      </form>
      <ErrorBox error={error} />
      {result ? (
        <div className="result" role="status" aria-label="Import result">
          <p>
            {result.total} rows: <strong>{result.inserted} inserted</strong>, {result.duplicate} duplicate, {result.unmatched} unmatched, {result.parseErrors.length} parse errors.
          </p>
          {result.parseErrors.length > 0 ? (
            <details open>
              <summary>Parse errors</summary>
              <ul>
                {result.parseErrors.slice(0, 50).map((e) => (
                  <li key={e}>{e}</li>
                ))}
              </ul>
            </details>
          ) : null}
          {result.unmatchedTrackingIds.length > 0 ? (
            <details open>
              <summary>Unmatched tracking ids</summary>
              <p className="mono">{result.unmatchedTrackingIds.slice(0, 100).join(', ')}</p>
            </details>
          ) : null}
        </div>
      ) : null}
    </Section>
  );
}

function LineActions({ line, onChanged }: { line: Line; onChanged: () => void }) {
  const [note, setNote] = useState('');
  const [outcome, setOutcome] = useState<'credited' | 'accepted' | 'written_off'>('credited');
  const { busy, error, run } = useAction();
  if (line.status === 'resolved') return <span className="muted">resolved</span>;
  const path = { params: { path: { trackingId: line.trackingId } } };
  return (
    <div className="review">
      <label>
        Note
        <input value={note} onChange={(e) => setNote(e.target.value)} aria-label={`Note for ${line.trackingId}`} />
      </label>
      <button type="button" disabled={busy || !note.trim()} onClick={() => void run(async () => unwrap(await api.POST('/admin/shipping/reconciliation/{trackingId}/dispute', { ...path, body: { note } })), onChanged)}>
        Dispute
      </button>
      <label>
        Outcome
        <select value={outcome} onChange={(e) => setOutcome(e.target.value as typeof outcome)} aria-label={`Outcome for ${line.trackingId}`}>
          <option value="credited">credited</option>
          <option value="accepted">accepted</option>
          <option value="written_off">written off</option>
        </select>
      </label>
      <button type="button" disabled={busy || !note.trim()} onClick={() => void run(async () => unwrap(await api.POST('/admin/shipping/reconciliation/{trackingId}/resolve', { ...path, body: { note, outcome } })), onChanged)}>
        Resolve
      </button>
      <ErrorBox error={error} />
    </div>
  );
}

function lineColumns(onChanged: () => void): Column<Line>[] {
  return [
    { header: 'Tracking id', cell: (l) => l.trackingId, className: 'mono' },
    { header: 'Carrier', cell: (l) => l.carrier ?? '—' },
    { header: 'Declared kg', cell: (l) => l.declaredKg ?? '—' },
    { header: 'Volumetric kg', cell: (l) => l.volumetricKg ?? '—' },
    { header: 'Billed kg', cell: (l) => l.billedKg ?? '—' },
    { header: 'Expected', cell: (l) => l.expectedCost ?? '—' },
    { header: 'Billed', cell: (l) => l.billedCost ?? '—' },
    { header: 'Variance', cell: (l) => l.variance ?? '—' },
    {
      header: 'Flags',
      cell: (l) =>
        l.flags.map((f) => (
          <span key={f} className="flag">
            {f}
          </span>
        )),
    },
    { header: 'Status', cell: (l) => l.status },
    { header: 'Action', cell: (l) => (l.flags.length > 0 || l.status !== 'ok' ? <LineActions line={l} onChanged={onChanged} /> : null) },
  ];
}

function Reconciliation({ round }: { round: number }) {
  const [carrier, setCarrier] = useState<Carrier | ''>('');
  const [flag, setFlag] = useState<Flag | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const query = { ...(carrier ? { carrier } : {}), ...(flag ? { flag } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) };
  // JSON (the route also answers text/csv, so the generated type is a union; this call asks for JSON)
  const page = useLoad(
    async () => unwrap(await api.GET('/admin/shipping/reconciliation', { params: { query: { ...query, limit: 200 } } })) as Schemas['ReconciliationPage'],
    [carrier, flag, from, to, round],
  );
  const csvHref = `/api/v1/admin/shipping/reconciliation?${new URLSearchParams({ ...query, format: 'csv' }).toString()}`;
  return (
    <Section
      title="Reconciliation"
      actions={
        <a className="button" href={csvHref} download="reconciliation.csv">
          Download CSV
        </a>
      }
    >
      <form className="row" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Carrier
          <select value={carrier} onChange={(e) => setCarrier(e.target.value as Carrier | '')}>
            <option value="">all</option>
            <option value="carrier_a">carrier_a</option>
            <option value="carrier_b">carrier_b</option>
          </select>
        </label>
        <label>
          Flag
          <select value={flag} onChange={(e) => setFlag(e.target.value as Flag | '')}>
            <option value="">all</option>
            {FLAGS.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          To
          <input type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
      </form>
      {page.loading && !page.data ? <Loading what="reconciliation" /> : null}
      <ErrorBox error={page.error} />
      {page.data ? (
        <>
          <dl className="totals" aria-label="Totals">
            <div>
              <dt>Lines</dt>
              <dd>{page.data.totals.lines}</dd>
            </div>
            <div>
              <dt>Expected</dt>
              <dd>{page.data.totals.expected}</dd>
            </div>
            <div>
              <dt>Billed</dt>
              <dd>{page.data.totals.billed}</dd>
            </div>
            <div>
              <dt>Variance</dt>
              <dd>{page.data.totals.variance}</dd>
            </div>
            {FLAGS.map((f) => (
              <div key={f}>
                <dt>{f}</dt>
                <dd>
                  {page.data?.totals.byFlag[f]?.lines ?? 0} ({page.data?.totals.byFlag[f]?.variance ?? '0.00'})
                </dd>
              </div>
            ))}
          </dl>
          <DataTable label="Reconciliation lines" rows={page.data.lines} columns={lineColumns(page.reload)} rowKey={(l) => l.trackingId} rowTestId="reconciliation-row" empty="No line matches the filters." />
          {page.data.nextCursor ? <p className="muted">The first 200 lines are shown; narrow the filters or download the CSV for all.</p> : null}
        </>
      ) : null}
    </Section>
  );
}

export function Settlements() {
  const [round, setRound] = useState(0);
  return (
    <>
      <Upload onImported={() => setRound((r) => r + 1)} />
      <Reconciliation round={round} />
    </>
  );
}
