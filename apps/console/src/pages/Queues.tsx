import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { useAction, useLoad } from '../hooks';
import { ErrorBox, Loading, Section, when } from '../ui';

/** A row's approve button and reject-with-reason form. */
function Review({ label, onApprove, onReject }: { label: string; onApprove: () => Promise<unknown>; onReject: (reason: string) => Promise<unknown> }) {
  const [reason, setReason] = useState('');
  const { busy, error, run } = useAction();
  return (
    <div className="review">
      <button type="button" disabled={busy} onClick={() => void run(onApprove)}>
        Approve {label}
      </button>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => onReject(reason));
        }}
      >
        <label>
          Reason
          <input value={reason} onChange={(e) => setReason(e.target.value)} required aria-label={`Reason to reject ${label}`} />
        </label>
        <button type="submit" disabled={busy}>
          Reject
        </button>
      </form>
      <ErrorBox error={error} />
    </div>
  );
}

export function Queues() {
  const applications = useLoad(async () => unwrap(await api.GET('/admin/vendor-applications', { params: { query: { status: 'pending', limit: 200 } } })), []);
  const companies = useLoad(async () => unwrap(await api.GET('/admin/b2b/companies/pending', { params: { query: { limit: 200 } } })), []);
  return (
    <>
      <Section title="Vendor applications">
        {applications.loading && !applications.data ? <Loading what="vendor applications" /> : null}
        <ErrorBox error={applications.error} />
        {applications.data?.length === 0 ? <p className="muted">No pending applications.</p> : null}
        {applications.data && applications.data.length > 0 ? (
          <table>
            <thead>
              <tr>
                <th>Store</th>
                <th>Applicant</th>
                <th>TIN / MSIC</th>
                <th>Applied</th>
                <th>Review</th>
              </tr>
            </thead>
            <tbody>
              {applications.data.map((a) => (
                <tr key={a.id} data-testid="application-row">
                  <td>{a.store_name}</td>
                  <td>
                    {a.full_name}
                    <br />
                    <span className="muted">{a.email}</span>
                  </td>
                  <td>
                    {a.tin} / {a.msic_code}
                  </td>
                  <td>{when(a.created_at)}</td>
                  <td>
                    <Review
                      label={a.store_name}
                      onApprove={async () => {
                        unwrap(await api.POST('/admin/vendor-applications/{id}/approve', { params: { path: { id: a.id } } }));
                        applications.reload();
                      }}
                      onReject={async (note) => {
                        unwrap(await api.POST('/admin/vendor-applications/{id}/reject', { params: { path: { id: a.id } }, body: { note } }));
                        applications.reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
      <Section title="B2B companies">
        {companies.loading && !companies.data ? <Loading what="companies" /> : null}
        <ErrorBox error={companies.error} />
        {companies.data?.length === 0 ? <p className="muted">No companies awaiting review.</p> : null}
        {companies.data && companies.data.length > 0 ? (
          <table>
            <thead>
              <tr>
                <th>Company</th>
                <th>SSM</th>
                <th>Contact</th>
                <th>Registered</th>
                <th>Review</th>
              </tr>
            </thead>
            <tbody>
              {companies.data.map((c) => (
                <tr key={c.id}>
                  <td>{c.name}</td>
                  <td>{c.ssm_number}</td>
                  <td>
                    {c.contact_name}
                    <br />
                    <span className="muted">{c.contact_email}</span>
                  </td>
                  <td>{when(c.created_at)}</td>
                  <td>
                    <Review
                      label={c.name}
                      onApprove={async () => {
                        unwrap(await api.POST('/admin/b2b/companies/{id}/approve', { params: { path: { id: c.id } } }));
                        companies.reload();
                      }}
                      onReject={async (reason) => {
                        unwrap(await api.POST('/admin/b2b/companies/{id}/reject', { params: { path: { id: c.id } }, body: { reason } }));
                        companies.reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
    </>
  );
}
