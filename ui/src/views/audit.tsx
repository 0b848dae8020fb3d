/** Audit (admins): filterable, paginated, newest first; masked values stay masked; chain status. */
import { useState } from "preact/hooks";
import { get } from "../lib/api.ts";
import { Empty, ErrorBox, formatJson, formatTime, Loading, useAsync } from "../lib/ui.tsx";

interface AuditEntry {
  seq: number;
  at: string;
  userId: string | null;
  tokenId: string | null;
  client: string | null;
  surface: string;
  tool: string;
  args: unknown;
  outcome: string;
  durationMs: number;
  summary: string | null;
  requestId: string | null;
}
interface Filters {
  user: string;
  tool: string;
  outcome: string;
  since: string;
  until: string;
}
const NO_FILTERS: Filters = { user: "", tool: "", outcome: "", since: "", until: "" };
const PAGE = 50;

export function AuditView() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [form, setForm] = useState<Filters>(NO_FILTERS);
  const [pages, setPages] = useState<(number | null)[]>([null]);
  const before = pages[pages.length - 1] ?? null;
  const users = useAsync(() => get<{ users: { id: string; name: string }[] }>("/api/users").then((r) => new Map(r.users.map((u) => [u.id, u.name]))), []);
  const chain = useAsync(() => get<{ ok: boolean; rows?: number; seq?: number; reason?: string }>("/api/audit/chain"), []);
  const page = useAsync(() => {
    const q = new URLSearchParams({ limit: String(PAGE) });
    for (const [k, v] of Object.entries(filters)) if (v) q.set(k, k === "since" || k === "until" ? new Date(v).toISOString() : v);
    if (before !== null) q.set("before", String(before));
    return get<{ entries: AuditEntry[]; next?: number | null; nextBefore?: number | null }>(`/api/audit?${q}`);
  }, [JSON.stringify(filters), before]);
  const next = page.data ? (page.data.next ?? page.data.nextBefore ?? null) : null;
  const field = (key: keyof Filters, label: string, type: "text" | "datetime-local" = "text") => (
    <div><label for={`audit-${key}`}>{label}</label>{type === "text"
      ? <input id={`audit-${key}`} type="text" value={form[key]} onInput={(e) => setForm({ ...form, [key]: (e.target as HTMLInputElement).value })} />
      : <input id={`audit-${key}`} type="datetime-local" value={form[key]} onInput={(e) => setForm({ ...form, [key]: (e.target as HTMLInputElement).value })} />}</div>
  );
  return (
    <section class="audit">
      <header class="page-head">
        <h1>Audit log</h1>
        <span class="chain-status" role="status">
          {chain.data ? (chain.data.ok ? <span class="badge state-active">Chain intact ({chain.data.rows} rows)</span> : <span class="badge danger">Chain broken at row {chain.data.seq}: {chain.data.reason}</span>) : chain.error ? <span class="badge">chain status unavailable</span> : "checking chain…"}
        </span>
      </header>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); setFilters(form); setPages([null]); }}>
        {field("user", "User (name)")}
        {field("tool", "Tool (a plugin tool, or user:<owner>/<name>)")}
        {field("outcome", "Outcome (ok or a code)")}
        {field("since", "Since", "datetime-local")}
        {field("until", "Until", "datetime-local")}
        <div class="filter-actions">
          <button type="submit" class="primary">Filter</button>
          <button type="button" onClick={() => { setForm(NO_FILTERS); setFilters(NO_FILTERS); setPages([null]); }}>Clear</button>
        </div>
      </form>
      <ErrorBox error={page.error} title="Could not load the audit log" />
      {page.loading && !page.data ? <Loading what="audit entries" /> : null}
      {page.data && page.data.entries.length === 0 ? <Empty><p>No audit entries{Object.values(filters).some(Boolean) ? " match these filters" : " yet"}.</p></Empty> : null}
      {page.data && page.data.entries.length > 0 ? (
        <div class="table-wrap">
          <table class="data audit-table">
            <thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">User</th><th scope="col">Via</th><th scope="col">Tool</th><th scope="col">Arguments</th><th scope="col">Outcome</th><th scope="col">ms</th><th scope="col">Summary</th></tr></thead>
            <tbody>
              {page.data.entries.map((e) => (
                <tr key={e.seq} data-seq={e.seq} data-tool={e.tool}>
                  <td>{e.seq}</td>
                  <td>{formatTime(e.at)}</td>
                  <td>{e.userId ? (users.data?.get(e.userId) ?? e.userId.slice(0, 8)) : "—"}</td>
                  <td>{e.surface}{e.client ? <div class="muted small">{e.client}</div> : null}</td>
                  <td><code>{e.tool}</code></td>
                  <td><code class="args">{formatJson(e.args).replace(/\s*\n\s*/g, " ")}</code></td>
                  <td><span class={e.outcome === "ok" ? "badge state-active" : "badge danger"}>{e.outcome}</span></td>
                  <td>{Math.round(e.durationMs)}</td>
                  <td>{e.summary ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <nav class="pager" aria-label="Audit pages">
        <button type="button" disabled={pages.length <= 1} onClick={() => setPages(pages.slice(0, -1))}>Newer</button>
        <span class="muted small">Page {pages.length}</span>
        <button type="button" disabled={next === null} onClick={() => setPages([...pages, next])}>Older</button>
      </nav>
    </section>
  );
}
