import { useState, type FormEvent } from 'react';
import { ApiError, api, unwrap, type Schemas } from '../api/client';
import { useLoad } from '../hooks';
import { DataTable, ErrorBox, Loading, Section, when, type Column } from '../ui';

type Summary = Schemas['AdminOrderSummary'];
type Detail = Schemas['AdminOrderDetail'];
type SubOrder = Detail['subOrders'][number];
type Notification = Detail['paymentNotifications'][number];
type TimelineEntry = Detail['timeline'][number];
type Shipment = Schemas['AdminShipment'];

/** Results of one search, a page at a time ("More" appends the next). */
function Results({ q, onOpen }: { q: string; onOpen: (id: string) => void }) {
  const [pages, setPages] = useState<{ orders: Summary[]; nextCursor: string | null }>();
  const first = useLoad(async () => {
    const page = unwrap(await api.GET('/admin/orders', { params: { query: { q, limit: 20 } } }));
    setPages(page);
    return page;
  }, [q]);
  const [more, setMore] = useState<{ loading: boolean; error?: string }>({ loading: false });
  const loadMore = async () => {
    if (!pages?.nextCursor) return;
    setMore({ loading: true });
    try {
      const page = unwrap(await api.GET('/admin/orders', { params: { query: { q, limit: 20, cursor: pages.nextCursor } } }));
      setPages({ orders: [...pages.orders, ...page.orders], nextCursor: page.nextCursor });
      setMore({ loading: false });
    } catch (err) {
      setMore({ loading: false, error: err instanceof Error ? err.message : String(err) });
    }
  };
  const columns: Column<Summary>[] = [
    {
      header: 'Order',
      cell: (o) => (
        <button type="button" className="link" onClick={() => onOpen(o.id)} aria-label={`Open order ${o.shortId}`}>
          {o.shortId}
        </button>
      ),
    },
    { header: 'Customer', cell: (o) => (o.customerEmail ? `${o.customerName ?? ''} ${o.customerEmail}`.trim() : <span className="mono">{o.customerId}</span>) },
    { header: 'Status', cell: (o) => o.status },
    { header: 'Total (MYR)', cell: (o) => o.total },
    { header: 'Sub-orders', cell: (o) => o.subOrderCount },
    { header: 'Placed', cell: (o) => when(o.createdAt) },
  ];
  return (
    <Section title={`Orders matching “${q}”`}>
      <DataTable label="Orders found" rows={first.loading ? undefined : pages?.orders} columns={columns} rowKey={(o) => o.id} state={first} empty="No order matches." rowTestId="order-row" />
      {pages?.nextCursor ? (
        <button type="button" disabled={more.loading} onClick={() => void loadMore()}>
          {more.loading ? 'Loading…' : 'More'}
        </button>
      ) : null}
      <ErrorBox error={more.error} />
    </Section>
  );
}

const subOrderColumns: Column<SubOrder>[] = [
  { header: 'Sub-order', cell: (s) => s.id, className: 'mono' },
  { header: 'Store', cell: (s) => s.storeName ?? s.storeId },
  { header: 'Status', cell: (s) => s.status },
  { header: 'Items', cell: (s) => s.items.map((i) => `${i.quantity} × ${i.productName}${i.variantName ? ` (${i.variantName})` : ''}`).join(', ') },
  { header: 'Shipping', cell: (s) => s.shippingFee },
  { header: 'Total', cell: (s) => s.total },
  { header: 'Tracking', cell: (s) => (s.trackingId ? `${s.courier ?? ''} ${s.trackingId}` : '—') },
];

const notificationColumns: Column<Notification>[] = [
  { header: 'Received', cell: (n) => when(n.receivedAt) },
  { header: 'Transaction', cell: (n) => n.transactionId, className: 'mono' },
  { header: 'Status', cell: (n) => n.status },
  { header: 'Verified', cell: (n) => (n.verified ? 'yes' : 'NO') },
];

const shipmentColumns: Column<Shipment>[] = [
  { header: 'Shipment', cell: (s) => s.id, className: 'mono' },
  { header: 'Store', cell: (s) => s.storeName },
  { header: 'Status', cell: (s) => s.status },
  { header: 'Tracking', cell: (s) => (s.trackingUrl ? <a href={s.trackingUrl}>{s.trackingId ?? 'track'}</a> : (s.trackingId ?? '—')) },
  { header: 'Paid', cell: (s) => when(s.paidAt) },
  { header: 'Shipped', cell: (s) => when(s.shippedAt) },
  { header: 'Delivered', cell: (s) => when(s.deliveredAt) },
  { header: 'Cancelled', cell: (s) => (s.cancelledAt ? `${when(s.cancelledAt)}${s.cancelReason ? ` (${s.cancelReason})` : ''}` : '—') },
];

const timelineColumns: Column<TimelineEntry>[] = [
  { header: 'When', cell: (e) => when(e.at) },
  { header: 'Event', cell: (e) => e.kind.replaceAll('_', ' ') },
  { header: 'What', cell: (e) => e.detail },
];

function OrderDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const detail = useLoad(async () => unwrap(await api.GET('/admin/orders/{id}', { params: { path: { id } } })), [id]);
  // vendor has no shipments of an order before its order.created arrives: 404, shown as none
  const shipments = useLoad(async () => {
    try {
      return unwrap(await api.GET('/admin/vendor/orders/{orderId}/shipments', { params: { path: { orderId: id } } }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return [];
      throw err;
    }
  }, [id]);
  const order = detail.data?.order;
  return (
    <Section
      title={order ? `Order ${order.shortId}` : 'Order'}
      actions={
        <button type="button" onClick={onClose}>
          Close
        </button>
      }
    >
      {detail.loading && !detail.data ? <Loading what="the order" /> : null}
      <ErrorBox error={detail.error} />
      {order && detail.data ? (
        <>
          <dl className="totals" aria-label="Order summary">
            <div>
              <dt>Status</dt>
              <dd>{order.status}</dd>
            </div>
            <div>
              <dt>Customer</dt>
              <dd>{order.customerEmail ?? order.customerId}</dd>
            </div>
            <div>
              <dt>Total (MYR)</dt>
              <dd>{order.total}</dd>
            </div>
            <div>
              <dt>Discount</dt>
              <dd>{order.discountTotal}</dd>
            </div>
            <div>
              <dt>Shipping</dt>
              <dd>{order.shippingTotal}</dd>
            </div>
            <div>
              <dt>Placed</dt>
              <dd>{when(order.createdAt)}</dd>
            </div>
            <div>
              <dt>Paid</dt>
              <dd>{when(order.paidAt)}</dd>
            </div>
            {order.isB2b ? (
              <div>
                <dt>B2B, buyer TIN</dt>
                <dd>{order.buyerTin ?? '—'}</dd>
              </div>
            ) : null}
          </dl>
          <h3>Sub-orders</h3>
          <DataTable label="Sub-orders" rows={detail.data.subOrders} columns={subOrderColumns} rowKey={(s) => s.id} />
          <h3>Payment</h3>
          {detail.data.payment ? (
            <p>
              {detail.data.payment.status}, {detail.data.payment.currency} {detail.data.payment.amount} ({detail.data.payment.attempts} attempts
              {detail.data.payment.refundedAmount !== '0.00' ? `, ${detail.data.payment.refundedAmount} refunded` : ''})
            </p>
          ) : (
            <p className="muted">No payment.</p>
          )}
          <DataTable label="Payment notifications" rows={detail.data.paymentNotifications} columns={notificationColumns} rowKey={(n) => `${n.transactionId}-${n.receivedAt}`} empty="No payment notification received." />
          <h3>Shipments</h3>
          <DataTable label="Shipments" rows={shipments.data} columns={shipmentColumns} rowKey={(s) => s.id} state={shipments} empty="Vendor has no shipments of this order yet." />
          <h3>Timeline</h3>
          <DataTable label="Timeline" rows={detail.data.timeline} columns={timelineColumns} rowKey={(e) => `${e.at}-${e.kind}-${e.subject ?? ''}`} rowTestId="timeline-row" />
        </>
      ) : null}
    </Section>
  );
}

export function Orders() {
  const [text, setText] = useState('');
  const [q, setQ] = useState<string>();
  const [open, setOpen] = useState<string>();
  const search = (event: FormEvent) => {
    event.preventDefault();
    setOpen(undefined);
    setQ(text.trim() || undefined);
  };
  return (
    <>
      <Section title="Find an order">
        <form className="row" role="search" onSubmit={search}>
          <label>
            Short id, order id or customer e-mail
            <input value={text} onChange={(e) => setText(e.target.value)} required placeholder="PSR-ABCD2345 or name@example.com" />
          </label>
          <button type="submit">Search</button>
        </form>
      </Section>
      {open ? <OrderDetail id={open} onClose={() => setOpen(undefined)} /> : null}
      {q ? <Results q={q} onOpen={setOpen} /> : null}
    </>
  );
}
