/** Sign-in: paste an API token; the server answers with an HttpOnly session cookie. */
import { useState } from "preact/hooks";
import { api, ApiError, type Me } from "../lib/api.ts";
import { asApiError, ErrorBox } from "../lib/ui.tsx";

export function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { user } = await api<{ user: Me }>("POST", "/api/session", { token });
      setToken("");
      onSignedIn(user);
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in" id="main">
      <form onSubmit={submit} class="card" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to knot-tools</h1>
        <p class="hint">Paste an API token. An admin creates one with <code>knot-tools tokens create NAME</code>; the first start of the server prints one for the admin.</p>
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autoComplete="off" spellcheck={false} required value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)} autoFocus />
        <ErrorBox error={error} title="Could not sign in" />
        <button type="submit" class="primary" disabled={busy || token.trim() === ""}>{busy ? "Signing in…" : "Sign in"}</button>
        <p class="hint small">The token is exchanged for a session that ends after 12 hours or when you sign out; the token itself is not stored in the browser.</p>
      </form>
    </main>
  );
}
