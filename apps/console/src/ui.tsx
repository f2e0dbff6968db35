import type { ReactNode } from 'react';

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function ErrorBox({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section aria-label={title}>
      <div className="section-head">
        <h2>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  className?: string;
}

/**
 * The one table of the console: a labelled table of `rows`, with the loading, error and empty
 * states of the list it shows (`state`: from useLoad).
 */
export function DataTable<T>({
  label,
  rows,
  columns,
  rowKey,
  state,
  empty = 'None.',
  rowTestId,
}: {
  label: string;
  rows: readonly T[] | undefined;
  columns: readonly Column<T>[];
  rowKey: (row: T) => string;
  state?: { loading: boolean; error?: string };
  empty?: string;
  rowTestId?: string;
}) {
  return (
    <>
      {state?.loading && !rows ? <Loading what={label.toLowerCase()} /> : null}
      <ErrorBox error={state?.error} />
      {rows?.length === 0 ? <p className="muted">{empty}</p> : null}
      {rows && rows.length > 0 ? (
        <table aria-label={label}>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c.header} scope="col">
                  {c.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={rowKey(row)} data-testid={rowTestId}>
                {columns.map((c) => (
                  <td key={c.header} className={c.className}>
                    {c.cell(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
