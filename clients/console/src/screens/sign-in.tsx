// Sign-in: email and password; "Keep me signed in" asks for the refresh session (an HttpOnly
// cookie), so a reload or reopening the installed app needs no password.
import { useState } from "react";
import { Package, WifiOff } from "../components/icons.js";
import { useOnline } from "../components/online.js";
import { problemText } from "../components/states.js";
import { useSession } from "../session.js";

export default function SignIn() {
  const { signIn, endedBecause } = useSession();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const online = useOnline();
  return (
    <main className="sign-in">
      <div className="panel">
        <h1 className="row">
          <Package size={28} aria-hidden="true" />
          Waybill console
        </h1>
        {!online && (
          <p className="offline-banner" role="status">
            <WifiOff size={18} aria-hidden="true" />
            Offline: sign in when the network is back.
          </p>
        )}
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
              await signIn(String(form.get("email")), String(form.get("password")), form.get("remember") === "on");
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
          <label className="check">
            <input name="remember" type="checkbox" defaultChecked />
            Keep me signed in on this device
          </label>
          {error && (
            <p className="alert" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="primary" disabled={busy}>
            {busy ? "Signing in…" : "Sign in"}
          </button>
        </form>
      </div>
    </main>
  );
}
