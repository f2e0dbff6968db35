import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { useAction, useLoad } from '../hooks';
import { DataTable, ErrorBox, Section, when, type Column } from '../ui';

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

type Application = Schemas['VendorApplication'];
type Company = Schemas['AdminB2bCompany'];

export function Queues() {
  const applications = useLoad(async () => unwrap(await api.GET('/admin/vendor-applications', { params: { query: { status: 'pending', limit: 200 } } })), []);
  const companies = useLoad(async () => unwrap(await api.GET('/admin/b2b/companies/pending', { params: { query: { limit: 200 } } })), []);
  const applicationColumns: Column<Application>[] = [
    { header: 'Store', cell: (a) => a.store_name },
    {
      header: 'Applicant',
      cell: (a) => (
        <>
          {a.full_name}
          <br />
          <span className="muted">{a.email}</span>
        </>
      ),
    },
    { header: 'TIN / MSIC', cell: (a) => `${a.tin} / ${a.msic_code}` },
    { header: 'Applied', cell: (a) => when(a.created_at) },
    {
      header: 'Review',
      cell: (a) => (
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
      ),
    },
  ];
  const companyColumns: Column<Company>[] = [
    { header: 'Company', cell: (c) => c.name },
    { header: 'SSM', cell: (c) => c.ssm_number },
    {
      header: 'Contact',
      cell: (c) => (
        <>
          {c.contact_name}
          <br />
          <span className="muted">{c.contact_email}</span>
        </>
      ),
    },
    { header: 'Registered', cell: (c) => when(c.created_at) },
    {
      header: 'Review',
      cell: (c) => (
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
      ),
    },
  ];
  return (
    <>
      <Section title="Vendor applications">
        <DataTable label="Vendor applications" rows={applications.data} columns={applicationColumns} rowKey={(a) => a.id} state={applications} empty="No pending applications." rowTestId="application-row" />
      </Section>
      <Section title="B2B companies">
        <DataTable label="B2B companies" rows={companies.data} columns={companyColumns} rowKey={(c) => c.id} state={companies} empty="No companies awaiting review." />
      </Section>
    </>
  );
}
