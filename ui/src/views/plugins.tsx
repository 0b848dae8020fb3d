/** Plugins (admins): every loaded plugin's declarations, every failed plugin with its reason, warnings. */
import { useState } from "preact/hooks";
import { get, pluginFetch, type ApiError } from "../lib/api.ts";
import { asApiError, Empty, ErrorBox, formatJson, Loading, useAsync } from "../lib/ui.tsx";

interface PluginInfo {
  name: string;
  version: string;
  description: string;
  permissions: string[];
  handlers: { handler: string; permission: string | null }[];
  /** Handlers and MCP tools grouped by their declared `area`. */
  areas?: { area: string; handlers: string[]; mcpTools: string[]; write: boolean }[];
  mcpTools: { name: string; description: string; handler: string; permission: string | null; readOnly: boolean; destructive: boolean; inputSchema: unknown }[];
  pages: { path: string; handler: string; label: string; permission: string | null }[];
  exports: { file: string; stem: string; specifier: string }[];
  clientModules: string[];
  config: string[];
  peers?: { executable: string; name: string | null; state: "starting" | "up" | "restarting" | "stopped"; pid: number | null; restarts: number; lastError: string | null }[];
}
interface PluginsAnswer {
  root: string;
  loaded: PluginInfo[];
  failed: { name: string; reason: string; problems: { code: string; message: string; where?: string; line?: number }[] }[];
  warnings: string[];
}

const gate = (permission: string | null) => (permission ? <code class="gate">{permission}</code> : <span class="muted">ungated</span>);

export function PluginsView() {
  const answer = useAsync(() => get<PluginsAnswer>("/api/plugins"), []);
  if (answer.loading && !answer.data) return <Loading what="plugins" />;
  if (answer.error || !answer.data) return <section><h1>Plugins</h1><ErrorBox error={answer.error} title="Could not load plugins" /></section>;
  const { loaded, failed, warnings, root } = answer.data;
  return (
    <section class="plugins">
      <header class="page-head"><h1>Plugins</h1><span class="muted small">from <code>{root || "(none configured)"}</code></span></header>
      {failed.length > 0 ? (
        <section aria-labelledby="failed-title" class="failed-plugins">
          <h2 id="failed-title">Failed to load ({failed.length})</h2>
          {failed.map((f) => (
            <article class="card failed" key={f.name} data-plugin={f.name}>
              <h3>{f.name}</h3>
              <p class="failure-reason">{f.reason}</p>
              {f.problems.length > 1 ? <ul class="small">{f.problems.map((p, i) => <li key={i}><code>{p.code}</code> {p.message}{p.line ? ` (line ${p.line})` : ""}</li>)}</ul> : null}
            </article>
          ))}
        </section>
      ) : null}
      {warnings.length > 0 ? (
        <section aria-labelledby="warnings-title"><h2 id="warnings-title">Warnings</h2><ul class="warnings">{warnings.map((w, i) => <li key={i}>{w}</li>)}</ul></section>
      ) : null}
      <h2>Loaded ({loaded.length})</h2>
      {loaded.length === 0 ? <Empty><p>No plugins are loaded. Put plugin folders in the plugins path and restart the server.</p></Empty> : null}
      {loaded.map((p) => <PluginCard key={p.name} plugin={p} />)}
    </section>
  );
}

function PluginCard({ plugin: p }: { plugin: PluginInfo }) {
  return (
    <article class="card plugin" data-plugin={p.name}>
      <header><h3>{p.name} <span class="muted small">v{p.version}</span></h3>{p.description ? <p>{p.description}</p> : null}</header>
      <dl class="facts">
        <dt>Permissions</dt><dd>{p.permissions.length ? p.permissions.map((id) => <code key={id} class="chip">{id}</code>) : <span class="muted">none</span>}</dd>
        <dt>Exports</dt><dd>{p.clientModules.length ? p.clientModules.map((s) => <code key={s} class="chip">{s}</code>) : <span class="muted">none (user tools cannot import it)</span>}</dd>
        {p.config.length ? <><dt>Config keys</dt><dd>{p.config.map((k) => <code key={k} class="chip">{k}</code>)}</dd></> : null}
      </dl>
      {p.peers?.length ? (
        <>
          <h4>Peers</h4>
          <table class="data compact peers"><thead><tr><th scope="col">Peer</th><th scope="col">Executable</th><th scope="col">Health</th><th scope="col">Restarts</th><th scope="col">Last error</th></tr></thead>
            <tbody>{p.peers.map((peer) => (
              <tr key={peer.executable} data-peer-state={peer.state}><td><code>{peer.name}</code></td><td><code>{peer.executable}</code></td>
                <td><span class={peer.state === "up" ? "badge" : "badge danger"}>{peer.state}</span>{peer.pid ? <span class="muted small"> pid {peer.pid}</span> : null}</td>
                <td>{peer.restarts}</td><td>{peer.lastError ?? <span class="muted">none</span>}</td></tr>
            ))}</tbody></table>
        </>
      ) : null}
      <h4>Handlers</h4>
      {p.handlers.length === 0 ? <p class="muted small">None.</p> : (
        <table class="data compact"><thead><tr><th scope="col">Handler</th><th scope="col">URL</th><th scope="col">Gate</th></tr></thead>
          <tbody>{p.handlers.map((h) => <tr key={h.handler}><td><code>{h.handler}</code></td><td><code>/plugins/{p.name}/{h.handler}</code></td><td>{gate(h.permission)}</td></tr>)}</tbody></table>
      )}
      <h4>MCP tools</h4>
      {p.mcpTools.length === 0 ? <p class="muted small">None.</p> : p.mcpTools.map((t) => (
        <details key={t.name} class="mcp-tool">
          <summary><code>{t.name}</code> — {t.description} · gate {gate(t.permission)}{t.readOnly ? <span class="badge">read-only</span> : null}{t.destructive ? <span class="badge danger">destructive</span> : null}</summary>
          <pre class="json">{formatJson(t.inputSchema)}</pre>
        </details>
      ))}
      {p.areas && p.areas.length > 0 ? (
        <>
          <h4>Areas</h4>
          <ul class="plugin-areas">{p.areas.map((a) => <li key={a.area} data-area={a.area}><strong>{a.area}</strong>: {[...a.mcpTools, ...a.handlers.filter((h) => !a.mcpTools.includes(h))].join(", ")}{a.write ? <span class="badge">changes things</span> : null}</li>)}</ul>
        </>
      ) : null}
      {p.pages.length ? (
        <>
          <h4>Pages</h4>
          <ul>{p.pages.map((pg) => <li key={pg.path}>{pg.label} <code>{pg.path}</code> · gate {gate(pg.permission)}</li>)}</ul>
        </>
      ) : null}
      {p.handlers.length ? <TryHandler plugin={p} /> : null}
    </article>
  );
}

/** Calls a handler with pluginFetch, as the signed-in admin: handy for checking a plugin. */
function TryHandler({ plugin }: { plugin: PluginInfo }) {
  const [fn, setFn] = useState(plugin.handlers[0]!.handler);
  const [params, setParams] = useState("{}");
  const [method, setMethod] = useState("GET");
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const id = `try-${plugin.name}`;
  const call = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setResult(null);
    try {
      const parsed = JSON.parse(params || "{}");
      setResult(formatJson(await pluginFetch(`${plugin.name}/${fn}`, { method, params: parsed })));
    } catch (err) {
      setError(err instanceof SyntaxError ? asApiError(new Error(`params are not JSON: ${err.message}`)) : asApiError(err));
    }
  };
  return (
    <details class="try-handler">
      <summary>Try a handler</summary>
      <form onSubmit={call} class="inline-form">
        <label for={`${id}-fn`}>Handler</label>
        <select id={`${id}-fn`} value={fn} onChange={(e) => setFn((e.target as HTMLSelectElement).value)}>{plugin.handlers.map((h) => <option key={h.handler}>{h.handler}</option>)}</select>
        <label for={`${id}-method`}>Method</label>
        <select id={`${id}-method`} value={method} onChange={(e) => setMethod((e.target as HTMLSelectElement).value)}><option>GET</option><option>POST</option></select>
        <label for={`${id}-params`}>Params (JSON)</label>
        <input id={`${id}-params`} value={params} onInput={(e) => setParams((e.target as HTMLInputElement).value)} />
        <button type="submit">Call</button>
      </form>
      <ErrorBox error={error} />
      {result !== null ? <pre class="json">{result}</pre> : null}
    </details>
  );
}
