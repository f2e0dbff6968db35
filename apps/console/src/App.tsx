import { useEffect, useState } from 'react';
import { api, type Schemas } from './api/client';
import { messageOf } from './hooks';
import { FailedWork } from './pages/FailedWork';
import { Forbidden } from './pages/Forbidden';
import { Orders } from './pages/Orders';
import { Queues } from './pages/Queues';
import { Settlements } from './pages/Settlements';
import { SignIn } from './pages/SignIn';
import { ErrorBox, Loading } from './ui';

type Session = Schemas['SessionResponse'];

const PAGES = [
  { hash: '#/queues', title: 'Review queues', Page: Queues },
  { hash: '#/orders', title: 'Orders', Page: Orders },
  { hash: '#/failed-work', title: 'Failed work', Page: FailedWork },
  { hash: '#/settlements', title: 'Settlements', Page: Settlements },
] as const;

function useHash(): string {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const onChange = () => setHash(window.location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return hash;
}

/** The session decides: sign-in page, 403 page (not an administrator), or the console. */
export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<string>();
  const hash = useHash();

  useEffect(() => {
    api.GET('/auth/session').then(
      ({ data, response }) => setSession(response.ok && data ? data : null),
      (err: unknown) => {
        setError(messageOf(err));
        setSession(null);
      },
    );
  }, []);

  const signOut = async () => {
    await api.POST('/auth/sign-out').catch(() => undefined);
    setSession(null);
  };

  if (session === undefined) return <Loading what="the session" />;
  if (session === null) {
    return (
      <>
        <ErrorBox error={error} />
        <SignIn onSignedIn={setSession} />
      </>
    );
  }
  if (session.user.role !== 'admin') return <Forbidden email={session.user.email} onSignOut={() => void signOut()} />;

  const current = PAGES.find((p) => p.hash === hash) ?? PAGES[0];
  return (
    <>
      <header>
        <strong>Pasar console</strong>
        <nav aria-label="Pages">
          {PAGES.map((p) => (
            <a key={p.hash} href={p.hash} aria-current={p === current ? 'page' : undefined}>
              {p.title}
            </a>
          ))}
        </nav>
        <span className="muted">{session.user.email}</span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main>
        <h1>{current.title}</h1>
        <current.Page />
      </main>
    </>
  );
}
