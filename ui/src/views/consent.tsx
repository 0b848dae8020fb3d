/**
 * The consent page of an assistant's OAuth connection (`/oauth/interaction/<uid>`): who is asking,
 * where the answer goes, and what to lend — areas (a plugin's permissions), user tools, write,
 * expiry. Approving creates a connection listed on the Tokens page; nothing is lent by default.
 */
import { useState } from "preact/hooks";
import { api, ApiError, get, type Me } from "../lib/api.ts";
import { asApiError, ErrorBox, Loading, useAsync } from "../lib/ui.tsx";

interface Area {
  plugin: string;
  description: string;
  glob: string;
  permissions: string[];
  /** Handlers and tools grouped by their declared area; each can be lent as a whole. */
  groups: { area: string; id: string; handlers: string[]; mcpTools: string[]; write: boolean }[];
}

interface Details {
  client: { id: string; name: string; verifiedHost: string | null; redirectHost: string | null };
  user: { name: string };
  mayConsent: boolean;
  areas: Area[];
  expiryChoicesDays: (number | null)[];
}

export function ConsentView({ path, me }: { path: string; me: Me }) {
  const details = useAsync(() => get<Details>(`${path}/details`), [path]);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [userTools, setUserTools] = useState(false);
  const [write, setWrite] = useState(false);
  const [expiry, setExpiry] = useState("30");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  if (details.error) return <main class="sign-in" id="main"><div class="card"><ErrorBox error={details.error} title="This connection request cannot continue" /></div></main>;
  if (!details.data) return <Loading what="the connection request" />;
  const d = details.data;
  const toggle = (id: string, on: boolean) => setChosen((prev) => {
    const next = new Set(prev);
    if (on) next.add(id);
    else next.delete(id);
    return next;
  });
  const answer = async (action: "approve" | "deny") => {
    setBusy(true);
    setError(null);
    try {
      const body = action === "approve" ? { permissions: [...chosen], userTools, write, expiresInDays: expiry === "never" ? null : Number(expiry) } : {};
      const { redirectTo } = await api<{ redirectTo: string }>("POST", `${path}/${action}`, body);
      window.location.assign(redirectTo);
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };
  return (
    <main class="sign-in consent" id="main">
      <form class="card stack" aria-labelledby="consent-title" onSubmit={(e) => { e.preventDefault(); void answer("approve"); }}>
        <h1 id="consent-title">Connect {d.client.name}?</h1>
        <p class="hint">
          {d.client.verifiedHost ? <>Published by <strong>{d.client.verifiedHost}</strong>. </> : <>This name was given by the assistant itself and is not verified. </>}
          After you answer, you go back to <strong data-redirect-host>{d.client.redirectHost ?? "the assistant"}</strong>.
        </p>
        <p>It will act as <strong>{me.name}</strong>, with only what you lend it below. You can revoke it on the Tokens page at any time.</p>
        {d.areas.length === 0 ? <p class="hint">No plugin areas are installed.</p> : null}
        {d.areas.map((area) => (
          <fieldset key={area.plugin} data-area={area.plugin}>
            <legend>{area.plugin}</legend>
            {area.description ? <p class="hint small">{area.description}</p> : null}
            <label class="inline"><input type="checkbox" name="area" value={area.glob} checked={chosen.has(area.glob)} onChange={(e) => toggle(area.glob, (e.target as HTMLInputElement).checked)} /> All of {area.plugin} that you may use</label>
            {area.permissions.map((p) => (
              <label class="inline" key={p}><input type="checkbox" name="permission" value={p} disabled={chosen.has(area.glob)} checked={chosen.has(area.glob) || chosen.has(p)} onChange={(e) => toggle(p, (e.target as HTMLInputElement).checked)} /> <code>{p}</code></label>
            ))}
            {area.groups.map((g) => (
              <label class="inline" key={g.id} data-area-group={g.area}>
                <input type="checkbox" name="area-group" value={g.id} disabled={chosen.has(area.glob)} checked={chosen.has(area.glob) || chosen.has(g.id)} onChange={(e) => toggle(g.id, (e.target as HTMLInputElement).checked)} />
                {" "}Area <strong>{g.area}</strong>: <span class="small">{[...g.mcpTools, ...g.handlers.filter((h) => !g.mcpTools.includes(h))].join(", ")}</span>{g.write ? <span class="small muted"> (can change things)</span> : null}
              </label>
            ))}
          </fieldset>
        ))}
        <label class="inline"><input type="checkbox" name="userTools" checked={userTools} onChange={(e) => setUserTools((e.target as HTMLInputElement).checked)} /> Your user tools (run them; write them if you may)</label>
        <label class="inline"><input type="checkbox" name="write" checked={write} onChange={(e) => setWrite((e.target as HTMLInputElement).checked)} /> May use tools that change things</label>
        <label for="consent-expiry">Expires</label>
        <select id="consent-expiry" value={expiry} onChange={(e) => setExpiry((e.target as HTMLSelectElement).value)}>
          {d.expiryChoicesDays.map((days) => <option key={String(days)} value={days === null ? "never" : String(days)}>{days === null ? "never" : `in ${days} day${days === 1 ? "" : "s"}`}</option>)}
        </select>
        {d.mayConsent ? null : <p class="error">You signed in with a limited token: sign in with an unscoped token to approve.</p>}
        <ErrorBox error={error} title="Could not answer" />
        <div class="actions">
          <button type="button" disabled={busy} onClick={() => void answer("deny")}>Deny</button>
          <button type="submit" class="primary" disabled={busy || !d.mayConsent}>Approve</button>
        </div>
      </form>
    </main>
  );
}
