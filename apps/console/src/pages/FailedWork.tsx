import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { useAction, useLoad } from '../hooks';
import { DataTable, ErrorBox, Section, when, type Column } from '../ui';

type Booking = Schemas['CarrierBooking'];
type DeadLetter = Schemas['DeadLetterMessage'];
type Delivery = Schemas['AdminWebhookDelivery'];

const SERVICES = ['gateway', 'checkout', 'b2b', 'vendor', 'admin'] as const;
type ServiceName = (typeof SERVICES)[number];

function Bookings({ status }: { status: 'pending_retry' | 'failed' }) {
  const bookings = useLoad(async () => unwrap(await api.GET('/admin/shipments/bookings', { params: { query: { status, limit: 100 } } })), [status]);
  const { busy, error, run } = useAction();
  const columns: Column<Booking>[] = [
    { header: 'Shipment', cell: (b) => b.shipmentId, className: 'mono' },
    { header: 'Carrier', cell: (b) => b.carrier },
    { header: 'Attempts', cell: (b) => b.attempts },
    { header: 'Next attempt', cell: (b) => when(b.nextAttemptAt) },
    { header: 'Last error', cell: (b) => b.lastError ?? '—' },
    {
      header: 'Action',
      cell: (b) =>
        status === 'failed' ? (
          <button type="button" disabled={busy} onClick={() => void run(async () => unwrap(await api.POST('/admin/shipments/{id}/book', { params: { path: { id: b.shipmentId } } })), bookings.reload)}>
            Retry booking
          </button>
        ) : (
          <span className="muted">retried by the worker</span>
        ),
    },
  ];
  const title = status === 'failed' ? 'Carrier bookings: failed' : 'Carrier bookings: waiting to retry';
  return (
    <Section title={title}>
      <ErrorBox error={error} />
      <DataTable label={title} rows={bookings.data} columns={columns} rowKey={(b) => b.shipmentId} state={bookings} />
    </Section>
  );
}

function DeadLetters() {
  const [service, setService] = useState<ServiceName>('checkout');
  const [reason, setReason] = useState('');
  const letters = useLoad(async () => unwrap(await api.GET('/admin/dead-letters/{service}/messages', { params: { path: { service }, query: { limit: 100 } } })), [service]);
  const { busy, error, run } = useAction();
  const path = (m: DeadLetter) => ({ params: { path: { service, kind: m.kind, id: m.id } } });
  const columns: Column<DeadLetter>[] = [
    { header: 'Kind', cell: (m) => m.kind },
    {
      header: 'Type / consumer',
      className: 'mono',
      cell: (m) => (
        <>
          {m.type}
          <br />
          {m.consumer ?? ''}
        </>
      ),
    },
    { header: 'Error', cell: (m) => m.error },
    { header: 'Deliveries', cell: (m) => m.deliveries ?? '—' },
    { header: 'Parked', cell: (m) => when(m.parkedAt) },
    {
      header: 'Action',
      cell: (m) => (
        <>
          <button type="button" disabled={busy} onClick={() => void run(async () => unwrap(await api.POST('/admin/dead-letters/{service}/messages/{kind}/{id}/replay', path(m))), letters.reload)}>
            Replay
          </button>{' '}
          <button
            type="button"
            disabled={busy || reason.trim().length < 3}
            onClick={() => void run(async () => unwrap(await api.POST('/admin/dead-letters/{service}/messages/{kind}/{id}/discard', { ...path(m), body: { reason } })), letters.reload)}
          >
            Discard
          </button>
        </>
      ),
    },
  ];
  return (
    <Section
      title="Parked messages and dead letters"
      actions={
        <div className="row">
          <label>
            Service
            <select value={service} onChange={(e) => setService(e.target.value as ServiceName)}>
              {SERVICES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <button type="button" onClick={letters.reload} disabled={letters.loading}>
            Refresh parked messages
          </button>
        </div>
      }
    >
      <label>
        Reason to discard
        <input value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <ErrorBox error={error} />
      <DataTable label="Parked messages" rows={letters.data} columns={columns} rowKey={(m) => `${m.kind}-${m.id}`} state={letters} empty="No parked messages." rowTestId="dead-letter-row" />
    </Section>
  );
}

function WebhookDeliveries({ status }: { status: 'failing' | 'failed' }) {
  const deliveries = useLoad(async () => unwrap(await api.GET('/admin/vendor/webhook-deliveries', { params: { query: { status, limit: 100 } } })), [status]);
  const { busy, error, run } = useAction();
  const columns: Column<Delivery>[] = [
    { header: 'Store', cell: (d) => d.storeName },
    { header: 'Endpoint host', cell: (d) => `${d.endpointHost}${d.endpointEnabled ? '' : ' (disabled)'}`, className: 'mono' },
    { header: 'Event', cell: (d) => d.eventType },
    { header: 'Attempts', cell: (d) => d.attempts },
    { header: 'Last error', cell: (d) => d.lastError ?? '—' },
    { header: 'Next attempt', cell: (d) => when(d.nextAttemptAt) },
    {
      header: 'Action',
      cell: (d) =>
        d.endpointEnabled ? (
          <button type="button" disabled={busy} onClick={() => void run(async () => unwrap(await api.POST('/admin/vendor/webhook-deliveries/{id}/retry', { params: { path: { id: d.id } } })), deliveries.reload)}>
            Retry
          </button>
        ) : (
          <span className="muted">the store has to enable the endpoint</span>
        ),
    },
  ];
  const title = status === 'failed' ? 'Webhook deliveries: failed' : 'Webhook deliveries: failing';
  return (
    <Section title={title}>
      <ErrorBox error={error} />
      <DataTable label={title} rows={deliveries.data?.deliveries} columns={columns} rowKey={(d) => d.id} state={deliveries} rowTestId="webhook-row" />
    </Section>
  );
}

export function FailedWork() {
  return (
    <>
      <Bookings status="failed" />
      <Bookings status="pending_retry" />
      <DeadLetters />
      <WebhookDeliveries status="failing" />
      <WebhookDeliveries status="failed" />
    </>
  );
}
