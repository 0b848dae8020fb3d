/**
 * The document a plugin page handler returns, and how it reaches the UI. Markdown is rendered to
 * sanitised HTML here (server-side); every other value is passed on as plain text, which the UI
 * renders as text (never as HTML). A malformed block is left out and reported, not fatal, so a
 * page with one bad block still shows the rest.
 *
 * @example
 * // a [[tool.knot.pages]] handler:
 * export function status_page() {
 *   return { title: "Status", blocks: [
 *     { type: "markdown", text: "All **good**." },
 *     { type: "stat", label: "Queue", value: 3 },
 *     { type: "kv", items: [{ key: "Region", value: "eu-1" }] },
 *     { type: "table", columns: ["Host", "Load"], rows: [["a", 0.2]] },
 *     { type: "form", action: "add_host", fields: [{ name: "host" }] },   // page-forms.ts
 *   ] };
 * }
 */
import { renderMarkdown } from "./markdown.ts";
import { renderInteractive, type InteractiveBlock } from "./page-forms.ts";

export type PageBlock =
  | { type: "markdown"; text: string }
  | { type: "kv"; items: { key: unknown; value: unknown }[] }
  | { type: "table"; columns: unknown[]; rows: unknown[][] }
  | { type: "stat"; label: unknown; value: unknown; hint?: unknown }
  | { type: "form" | "button"; [key: string]: unknown };

export interface PageDocument {
  title?: string;
  blocks: PageBlock[];
}

export type RenderedBlock =
  | { type: "markdown"; html: string }
  | { type: "kv"; items: { key: string; value: string }[] }
  | { type: "table"; columns: string[]; rows: string[][] }
  | { type: "stat"; label: string; value: string; hint: string | null }
  | InteractiveBlock;

export interface RenderedPage {
  title: string | null;
  blocks: RenderedBlock[];
  /** What was wrong with the document (blocks left out), for the page's author. */
  problems: string[];
}

export const PAGE_LIMITS = Object.freeze({ blocks: 200, rows: 1000, columns: 50, items: 500, textChars: 10_000, markdownChars: 100_000 });

/** Any value as display text: strings as they are, everything else as compact JSON. */
export function asText(value: unknown): string {
  let text: string;
  if (typeof value === "string") text = value;
  else if (value === undefined || value === null) text = "";
  else text = JSON.stringify(value) ?? String(value);
  return text.length > PAGE_LIMITS.textChars ? `${text.slice(0, PAGE_LIMITS.textChars)}…` : text;
}

/** A handler's return value (a document, or a plain string treated as markdown) → what the UI shows. */
export function renderPageDocument(value: unknown): RenderedPage {
  if (typeof value === "string") return { title: null, blocks: [renderBlock({ type: "markdown", text: value })], problems: [] };
  if (!value || typeof value !== "object" || Array.isArray(value) || !Array.isArray((value as PageDocument).blocks)) {
    return { title: null, blocks: [], problems: ["the page handler must return { title?, blocks: [...] } or a markdown string"] };
  }
  const doc = value as PageDocument;
  return { title: doc.title === undefined || doc.title === null ? null : asText(doc.title), ...renderBlocks(doc.blocks) };
}

/** A list of blocks (a document's, or an action envelope's) → what the UI shows, and what was left out. */
export function renderBlocks(raw: unknown[]): { blocks: RenderedBlock[]; problems: string[] } {
  const problems: string[] = [];
  const blocks: RenderedBlock[] = [];
  if (raw.length > PAGE_LIMITS.blocks) problems.push(`only the first ${PAGE_LIMITS.blocks} of ${raw.length} blocks are shown`);
  raw.slice(0, PAGE_LIMITS.blocks).forEach((block, i) => {
    const problem = blockProblem(block);
    if (problem) {
      problems.push(`blocks[${i}]: ${problem}`);
      return;
    }
    const b = block as PageBlock;
    if (b.type !== "form" && b.type !== "button") return blocks.push(renderBlock(b as StaticBlock));
    const interactive = renderInteractive(b as Record<string, unknown>, asText);
    if (typeof interactive === "string") problems.push(`blocks[${i}]: ${interactive}`);
    else blocks.push(interactive);
  });
  return { blocks, problems };
}

function blockProblem(block: unknown): string | null {
  if (!block || typeof block !== "object") return "a block must be an object with a type";
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case "markdown":
      if (typeof b.text !== "string") return "markdown needs text (a string)";
      return b.text.length > PAGE_LIMITS.markdownChars ? `markdown is over ${PAGE_LIMITS.markdownChars} characters` : null;
    case "kv":
      if (!Array.isArray(b.items) || b.items.some((item) => !item || typeof item !== "object")) return "kv needs items: [{ key, value }]";
      return b.items.length > PAGE_LIMITS.items ? `kv has over ${PAGE_LIMITS.items} items` : null;
    case "table":
      if (!Array.isArray(b.columns) || !Array.isArray(b.rows) || b.rows.some((row) => !Array.isArray(row))) return "table needs columns: [...] and rows: [[...]]";
      if (b.columns.length > PAGE_LIMITS.columns) return `table has over ${PAGE_LIMITS.columns} columns`;
      return b.rows.length > PAGE_LIMITS.rows ? `table has over ${PAGE_LIMITS.rows} rows` : null;
    case "stat":
      return "label" in b && "value" in b ? null : "stat needs label and value";
    case "form": case "button":
      return null;
    default:
      return `unknown block type ${JSON.stringify(b.type)} (markdown, kv, table, stat, form or button)`;
  }
}

type StaticBlock = Exclude<PageBlock, { type: "form" | "button" }>;

function renderBlock(block: StaticBlock): RenderedBlock {
  switch (block.type) {
    case "markdown": return { type: "markdown", html: renderMarkdown(block.text) };
    case "kv": return { type: "kv", items: block.items.map((item) => ({ key: asText(item.key), value: asText(item.value) })) };
    case "table": {
      const columns = block.columns.map(asText);
      return { type: "table", columns, rows: block.rows.map((row) => columns.map((_, i) => asText(row[i]))) };
    }
    case "stat": return { type: "stat", label: asText(block.label), value: asText(block.value), hint: block.hint === undefined ? null : asText(block.hint) };
  }
}
