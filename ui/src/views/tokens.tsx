/** Tokens: create (name, expiry, scopes) and see the secret once, with a copy button; list and revoke. */
import { useState } from "preact/hooks";
import { api, ApiError, get, type Me } from "../lib/api.ts";
import { asApiError, ConfirmDialog, Empty, ErrorBox, formatTime, Loading, Modal, NameDialog, useAsync } from "../lib/ui.tsx";

interface TokenRow {
  id: string;
  name: string;
  scopes: { permissions: string[]; write: boolean } | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  state: "active" | "expired" | "revoked";
  session: boolean;
  current: boolean;
  /** Set for an assistant's OAuth connection (approved on the consent page). */
  connection: { clientId: string; clientName: string } | null;
}

export function TokensView({ me }: { me: Me }) {
  const tokens = useAsync(() => get<{ tokens: TokenRow[] }>("/api/tokens").then((r) => r.tokens), []);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const [renaming, setRenaming] = useState<TokenRow | null>(null);
  const [showInactive, setShowInactive] = useState(false);
  const rows = (tokens.data ?? []).filter((t) => showInactive || t.state === "active").reverse();
  return (
    <section class="tokens">
      <header class="page-head">
        <h1>Tokens</h1>
        <button type="button" class="primary" onClick={() => setCreating(true)}>Create token</button>
      </header>
      <p class="hint">API tokens let assistants (MCP) and scripts act as you, {me.name}. Narrow a token with scopes to give an assistant less than you can do. Assistants you connected by signing in (OAuth) appear here as connections.</p>
      <label class="inline"><input type="checkbox" checked={showInactive} onChange={(e) => setShowInactive((e.target as HTMLInputElement).checked)} /> Show revoked and expired tokens</label>
      {tokens.loading && !tokens.data ? <Loading what="tokens" /> : null}
      <ErrorBox error={tokens.error} title="Could not load tokens" />
      {tokens.data && rows.length === 0 ? <Empty><p>No active tokens. Create one to connect an assistant.</p></Empty> : null}
      {rows.length > 0 ? (
        <div class="table-wrap">
          <table class="data">
            <thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.id} data-token={t.name} class={t.state !== "active" ? "inactive" : undefined}>
                  <td>{t.name}{t.current ? <span class="badge">this session</span> : null}{t.connection ? <span class="badge" title={`OAuth client ${t.connection.clientId}`} data-connection={t.connection.clientName}>connection: {t.connection.clientName}</span> : null}</td>
                  <td>{t.scopes ? <>{t.scopes.permissions.map((p) => <code key={p} class="chip">{p}</code>)}{t.scopes.write ? null : <span class="badge">read-only</span>}</> : <span class="muted">full (your permissions)</span>}</td>
                  <td>{formatTime(t.createdAt)}</td>
                  <td>{t.expiresAt ? formatTime(t.expiresAt) : "never"}</td>
                  <td>{formatTime(t.lastUsedAt)}</td>
                  <td><span class={`badge state-${t.state}`}>{t.state}</span></td>
                  <td>
                    {t.state === "active" && !t.session ? <button type="button" onClick={() => setRenaming(t)} aria-label={`Rename ${t.name}`}>Rename</button> : null}
                    {t.state === "active" && !t.current ? <button type="button" class="danger" onClick={() => setRevoking(t)} aria-label={`Revoke ${t.name}`}>Revoke</button> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {creating ? <CreateTokenDialog onClose={() => setCreating(false)} onCreated={tokens.reload} /> : null}
      {renaming ? <RenameDialog token={renaming} onClose={() => setRenaming(null)} onRenamed={tokens.reload} /> : null}
      {revoking ? (
        <ConfirmDialog title={`Revoke ${revoking.name}?`} danger confirm="Revoke"
          message={<p>Anything using <strong>{revoking.name}</strong> stops working at once{revoking.connection ? " (its access and refresh tokens and open MCP sessions end)" : ""}. This cannot be undone.</p>}
          onConfirm={async () => { await api("DELETE", `/api/tokens/${encodeURIComponent(revoking.id)}`); tokens.reload(); }}
          onClose={() => setRevoking(null)} />
      ) : null}
    </section>
  );
}

function CreateTokenDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const [name, setName] = useState("");
  const [expiry, setExpiry] = useState("90");
  const [scoped, setScoped] = useState(false);
  const [scopes, setScopes] = useState("");
  const [write, setWrite] = useState(true);
  const [error, setError] = useState<ApiError | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const body = {
        name, expiresInDays: expiry === "never" ? null : Number(expiry),
        scopes: scoped ? scopes.split(/[\s,]+/).filter(Boolean) : null, ...(scoped || !write ? { write } : {}),
      };
      const r = await api<{ secret: string }>("POST", "/api/tokens", body);
      setSecret(r.secret);
      onCreated();
    } catch (err) {
      setError(asApiError(err));
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret ?? "");
      setCopied(true);
    } catch {
      (document.getElementById("new-secret") as HTMLInputElement | null)?.select();
    }
  };
  if (secret) {
    return (
      <Modal title="Your new token" onClose={onClose}>
        <p><strong>Copy it now:</strong> it is shown only once and cannot be recovered.</p>
        <div class="secret-row">
          <input id="new-secret" class="secret" readOnly value={secret} aria-label="New token secret" onFocus={(e) => (e.target as HTMLInputElement).select()} />
          <button type="button" class="primary" onClick={copy}>{copied ? "Copied" : "Copy"}</button>
        </div>
        <div class="actions"><button type="button" onClick={onClose}>Done</button></div>
      </Modal>
    );
  }
  return (
    <Modal title="Create a token" onClose={onClose}>
      <form onSubmit={create} class="stack">
        <label for="token-name">Name</label>
        <input id="token-name" value={name} required maxLength={100} placeholder="e.g. my laptop assistant" autoFocus onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <label for="token-expiry">Expires</label>
        <select id="token-expiry" value={expiry} onChange={(e) => setExpiry((e.target as HTMLSelectElement).value)}>
          <option value="1">in 1 day</option><option value="7">in 7 days</option><option value="30">in 30 days</option><option value="90">in 90 days</option><option value="365">in a year</option><option value="never">never</option>
        </select>
        <label class="inline"><input type="checkbox" checked={scoped} onChange={(e) => setScoped((e.target as HTMLInputElement).checked)} /> Limit to scopes</label>
        {scoped ? (
          <>
            <label for="token-scopes">Scopes</label>
            <input id="token-scopes" value={scopes} placeholder="plugin.demo.*, knot.tools.run" aria-describedby="token-scopes-hint" onInput={(e) => setScopes((e.target as HTMLInputElement).value)} />
            <p id="token-scopes-hint" class="hint small">Permission ids or globs, separated by commas. The token can do only what you can do and these allow.</p>
          </>
        ) : null}
        <label class="inline"><input type="checkbox" checked={write} onChange={(e) => setWrite((e.target as HTMLInputElement).checked)} /> May use tools that change things</label>
        <ErrorBox error={error} title="Could not create the token" />
        <div class="actions"><button type="button" onClick={onClose}>Cancel</button><button type="submit" class="primary">Create</button></div>
      </form>
    </Modal>
  );
}

function RenameDialog({ token, onClose, onRenamed }: { token: TokenRow; onClose: () => void; onRenamed: () => void }) {
  return (
    <NameDialog title={`Rename ${token.name}`} id="token-rename" label="Name" initial={token.name} confirm="Save" maxLength={100} onClose={onClose}
      save={async (name) => { await api("PATCH", `/api/tokens/${encodeURIComponent(token.id)}`, { name }); onRenamed(); }} />
  );
}
