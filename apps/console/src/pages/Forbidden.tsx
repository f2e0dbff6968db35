/** A signed-in user without the admin role. */
export function Forbidden({ email, onSignOut }: { email: string; onSignOut: () => void }) {
  return (
    <main className="sign-in">
      <h1>403 — administrators only</h1>
      <p>
        You are signed in as <strong>{email}</strong>, which is not an administrator account. The console is for administrators.
      </p>
      <button type="button" onClick={onSignOut}>
        Sign out
      </button>
    </main>
  );
}
