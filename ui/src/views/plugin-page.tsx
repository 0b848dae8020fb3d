/**
 * A plugin page: the handler's document, rendered by the server (markdown sanitised there, the
 * rest as text). Forms and buttons post to the page's actions; the answer (`{blocks?, toast?,
 * redirect?}`) replaces the blocks, shows a toast, or moves to a same-origin path.
 */
import { useEffect, useState } from "preact/hooks";
import { get, postForm } from "../lib/api.ts";
import { asApiError, ErrorBox, Loading, useAsync } from "../lib/ui.tsx";
import type { ApiError } from "../lib/api.ts";
import { PageButton, PageForm, sameOriginTarget, type InteractiveBlock } from "./page-forms.tsx";

type Block =
  | { type: "markdown"; html: string }
  | { type: "kv"; items: { key: string; value: string }[] }
  | { type: "table"; columns: string[]; rows: string[][] }
  | { type: "stat"; label: string; value: string; hint: string | null }
  | InteractiveBlock;

interface RenderedPage {
  plugin: string;
  label: string;
  title: string | null;
  blocks: Block[];
  problems: string[];
}

interface Envelope {
  blocks?: Block[];
  toast?: string;
  redirect?: string;
  problems: string[];
}

export function PluginPageView({ plugin, path }: { plugin: string; path: string }) {
  const base = `/api/pages/${encodeURIComponent(plugin)}/${encodeURIComponent(path.slice(1))}`;
  const page = useAsync(() => get<RenderedPage>(base), [plugin, path]);
  const [blocks, setBlocks] = useState<Block[] | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const [toast, setToast] = useState<string | null>(null);
  const [actionError, setActionError] = useState<ApiError | null>(null);
  // New blocks remount (a submitted form starts empty again rather than keeping what was typed).
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    setBlocks(page.data?.blocks ?? null);
    setProblems(page.data?.problems ?? []);
    setToast(null);
    setActionError(null);
  }, [page.data]);
  if (page.loading && !page.data) return <Loading what="the page" />;
  if (page.error || !page.data) return <section><h1>Plugin page</h1><ErrorBox error={page.error} title="Could not show this page" /></section>;

  const run = async (action: string, fields: Array<[string, string]>) => {
    setActionError(null);
    try {
      const answer = await postForm<Envelope>(`${base}/actions/${encodeURIComponent(action)}`, fields);
      if (answer.blocks) {
        setBlocks(answer.blocks);
        setGeneration((g) => g + 1);
      }
      setProblems(answer.problems);
      setToast(answer.toast ?? null);
      const target = answer.redirect ? sameOriginTarget(answer.redirect) : null;
      if (target) window.location.assign(target);
    } catch (error) {
      setActionError(asApiError(error));
    }
  };
  const { title, label } = page.data;
  const shown = blocks ?? page.data.blocks;
  return (
    <section class="plugin-page" data-plugin={plugin}>
      <header class="page-head"><h1>{title ?? label}</h1><span class="muted small">from plugin <code>{plugin}</code></span></header>
      {toast !== null ? <div class="notice toast" role="status" aria-label="Page message">{toast}</div> : null}
      <ErrorBox error={actionError} title="The action failed" />
      {problems.length > 0 ? <div class="notice small" role="status"><strong>This page has problems:</strong><ul>{problems.map((p, i) => <li key={i}>{p}</li>)}</ul></div> : null}
      {shown.length === 0 ? <p class="empty">This page is empty.</p> : null}
      {shown.map((block, i) => <PageBlock key={`${generation}-${i}`} block={block} run={run} index={i} />)}
    </section>
  );
}

function PageBlock({ block, run, index }: { block: Block; run: (action: string, fields: Array<[string, string]>) => Promise<void>; index: number }) {
  switch (block.type) {
    // Sanitised server-side (markdown-it without raw HTML, then an allow-list); the CSP forbids inline script.
    case "markdown": return <div class="markdown" dangerouslySetInnerHTML={{ __html: block.html }} />;
    case "kv": return <dl class="kv">{block.items.map((item, i) => <div key={i} class="kv-row"><dt>{item.key}</dt><dd>{item.value}</dd></div>)}</dl>;
    case "table": return (
      <div class="table-wrap"><table class="data"><thead><tr>{block.columns.map((c, i) => <th key={i} scope="col">{c}</th>)}</tr></thead>
        <tbody>{block.rows.map((row, r) => <tr key={r}>{row.map((cell, c) => <td key={c}>{cell}</td>)}</tr>)}</tbody></table></div>
    );
    case "stat": return <div class="stat"><div class="stat-value">{block.value}</div><div class="stat-label">{block.label}</div>{block.hint ? <div class="stat-hint muted small">{block.hint}</div> : null}</div>;
    case "form": return <PageForm block={block} run={run} idPrefix={`pf${index}`} />;
    case "button": return <PageButton block={block} run={run} />;
  }
}
