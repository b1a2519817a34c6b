import { useState } from "react";
import { problemText } from "../components/states.js";
import { useSession } from "../session.js";

export default function SignIn() {
  const { signIn, endedBecause } = useSession();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <main className="sign-in">
      <h1>Waybill console</h1>
      {endedBecause && (
        <p className="notice" role="status">
          {endedBecause}
        </p>
      )}
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          setBusy(true);
          setError(undefined);
          try {
            await signIn(String(form.get("email")), String(form.get("password")));
          } catch (e) {
            setError(problemText(e));
          } finally {
            setBusy(false);
          }
        }}
      >
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {error && (
          <p className="state error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
