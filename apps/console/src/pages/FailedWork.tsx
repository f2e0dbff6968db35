import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { SERVICES, discardDeadLetter, listDeadLetters, replayDeadLetter, type ServiceName } from '../api/dead-letters';
import { useAction, useLoad } from '../hooks';
import { ErrorBox, Loading, Section, when } from '../ui';

function Bookings({ status }: { status: 'pending_retry' | 'failed' }) {
  const bookings = useLoad(async () => unwrap(await api.GET('/admin/shipments/bookings', { params: { query: { status, limit: 100 } } })), [status]);
  const { busy, error, run } = useAction();
  return (
    <Section title={status === 'failed' ? 'Carrier bookings: failed' : 'Carrier bookings: waiting to retry'}>
      {bookings.loading && !bookings.data ? <Loading what="bookings" /> : null}
      <ErrorBox error={bookings.error ?? error} />
      {bookings.data?.length === 0 ? <p className="muted">None.</p> : null}
      {bookings.data && bookings.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th>Shipment</th>
              <th>Carrier</th>
              <th>Attempts</th>
              <th>Next attempt</th>
              <th>Last error</th>
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            {bookings.data.map((b) => (
              <tr key={b.shipmentId}>
                <td className="mono">{b.shipmentId}</td>
                <td>{b.carrier}</td>
                <td>{b.attempts}</td>
                <td>{when(b.nextAttemptAt)}</td>
                <td>{b.lastError ?? '—'}</td>
                <td>
                  {status === 'failed' ? (
                    <button type="button" disabled={busy} onClick={() => void run(async () => unwrap(await api.POST('/admin/shipments/{id}/book', { params: { path: { id: b.shipmentId } } })), bookings.reload)}>
                      Retry booking
                    </button>
                  ) : (
                    <span className="muted">retried by the worker</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}

function DeadLetters() {
  const [service, setService] = useState<ServiceName>('checkout');
  const [reason, setReason] = useState('');
  const letters = useLoad(() => listDeadLetters(service), [service]);
  const { busy, error, run } = useAction();
  return (
    <Section
      title="Parked messages and dead letters"
      actions={
        <label>
          Service
          <select value={service} onChange={(e) => setService(e.target.value as ServiceName)}>
            {SERVICES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      }
    >
      <label>
        Reason to discard
        <input value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      {letters.loading && !letters.data ? <Loading what="parked messages" /> : null}
      <ErrorBox error={letters.error ?? error} />
      {letters.data?.length === 0 ? <p className="muted">No parked messages.</p> : null}
      {letters.data && letters.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th>Kind</th>
              <th>Type / consumer</th>
              <th>Error</th>
              <th>Deliveries</th>
              <th>Parked</th>
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            {letters.data.map((m) => (
              <tr key={`${m.kind}-${m.id}`}>
                <td>{m.kind}</td>
                <td className="mono">
                  {m.type}
                  <br />
                  {m.consumer ?? ''}
                </td>
                <td>{m.error}</td>
                <td>{m.deliveries ?? '—'}</td>
                <td>{when(m.parkedAt)}</td>
                <td>
                  <button type="button" disabled={busy} onClick={() => void run(() => replayDeadLetter(service, m), letters.reload)}>
                    Replay
                  </button>{' '}
                  <button type="button" disabled={busy || reason.trim().length < 3} onClick={() => void run(() => discardDeadLetter(service, m, reason), letters.reload)}>
                    Discard
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}

export function FailedWork() {
  return (
    <>
      <Bookings status="failed" />
      <Bookings status="pending_retry" />
      <DeadLetters />
    </>
  );
}
