/** A plugin page: the handler's document, rendered by the server (markdown sanitised there, the rest as text). */
import { get } from "../lib/api.ts";
import { ErrorBox, Loading, useAsync } from "../lib/ui.tsx";

type Block =
  | { type: "markdown"; html: string }
  | { type: "kv"; items: { key: string; value: string }[] }
  | { type: "table"; columns: string[]; rows: string[][] }
  | { type: "stat"; label: string; value: string; hint: string | null };

interface RenderedPage {
  plugin: string;
  label: string;
  title: string | null;
  blocks: Block[];
  problems: string[];
}

export function PluginPageView({ plugin, path }: { plugin: string; path: string }) {
  const page = useAsync(() => get<RenderedPage>(`/api/pages/${encodeURIComponent(plugin)}/${encodeURIComponent(path.slice(1))}`), [plugin, path]);
  if (page.loading && !page.data) return <Loading what="the page" />;
  if (page.error || !page.data) return <section><h1>Plugin page</h1><ErrorBox error={page.error} title="Could not show this page" /></section>;
  const { title, label, blocks, problems } = page.data;
  return (
    <section class="plugin-page" data-plugin={plugin}>
      <header class="page-head"><h1>{title ?? label}</h1><span class="muted small">from plugin <code>{plugin}</code></span></header>
      {problems.length > 0 ? <div class="notice small" role="status"><strong>This page has problems:</strong><ul>{problems.map((p, i) => <li key={i}>{p}</li>)}</ul></div> : null}
      {blocks.length === 0 ? <p class="empty">This page is empty.</p> : null}
      {blocks.map((block, i) => <PageBlock key={i} block={block} />)}
    </section>
  );
}

function PageBlock({ block }: { block: Block }) {
  switch (block.type) {
    // Sanitised server-side (markdown-it without raw HTML, then an allow-list); the CSP forbids inline script.
    case "markdown": return <div class="markdown" dangerouslySetInnerHTML={{ __html: block.html }} />;
    case "kv": return <dl class="kv">{block.items.map((item, i) => <div key={i} class="kv-row"><dt>{item.key}</dt><dd>{item.value}</dd></div>)}</dl>;
    case "table": return (
      <div class="table-wrap"><table class="data"><thead><tr>{block.columns.map((c, i) => <th key={i} scope="col">{c}</th>)}</tr></thead>
        <tbody>{block.rows.map((row, r) => <tr key={r}>{row.map((cell, c) => <td key={c}>{cell}</td>)}</tr>)}</tbody></table></div>
    );
    case "stat": return <div class="stat"><div class="stat-value">{block.value}</div><div class="stat-label">{block.label}</div>{block.hint ? <div class="stat-hint muted small">{block.hint}</div> : null}</div>;
  }
}
