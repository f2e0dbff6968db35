import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { useAction } from '../hooks';
import { ErrorBox } from '../ui';

type Session = Schemas['SessionResponse'];

/** E-mail and password → POST /auth/sign-in (the gateway sets the HttpOnly session cookie). */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => onSignedIn(unwrap(await api.POST('/auth/sign-in', { body: { email, password } }))));
  };
  return (
    <main className="sign-in">
      <h1>Pasar console</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          E-mail
          <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        </label>
        <label>
          Password
          <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorBox error={error} />
      </form>
    </main>
  );
}
