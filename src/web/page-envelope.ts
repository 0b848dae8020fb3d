/**
 * What a page action's handler answers: an envelope `{ blocks?, toast?, redirect? }`, checked here
 * before the UI applies it. Why: the envelope is written by plugin code that often echoes what a
 * user typed, so blocks go through the same renderer as a page (text stays text, markdown is
 * sanitised), the toast is plain text, and a redirect is followed only to a path on this same
 * origin — never `//host`, `/\host`, a scheme, or anything a browser would resolve elsewhere.
 *
 * @example
 * export function add_host(request) {
 *   return { toast: `Added ${request.params.host}`, blocks: [{ type: "markdown", text: "Done." }] };
 * }
 * // or { redirect: "/#/pages/fleet/hosts" }
 */
import { asText, renderBlocks, type RenderedBlock } from "./page-document.ts";

const TOAST_CHARS = 500;
const ENVELOPE_KEYS = ["blocks", "toast", "redirect"];

export interface ActionEnvelope {
  /** Replace the page's blocks (absent: keep them). */
  blocks?: RenderedBlock[];
  toast?: string;
  /** A same-origin path the UI navigates to. */
  redirect?: string;
  /** What was left out, for the plugin's author. */
  problems: string[];
}

/** The handler's plain value (null, a string toast, or an envelope object) → the checked envelope. */
export function readEnvelope(value: unknown): ActionEnvelope {
  if (value === null || value === undefined) return { problems: [] };
  if (typeof value === "string") return { toast: clip(value), problems: [] };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { problems: ["an action handler must return { blocks?, toast?, redirect? }, a string (a toast) or nothing"] };
  }
  const raw = value as Record<string, unknown>;
  const problems = Object.keys(raw).filter((key) => !ENVELOPE_KEYS.includes(key)).map((key) => `unknown envelope key ${JSON.stringify(key)} (blocks, toast or redirect)`);
  const envelope: ActionEnvelope = { problems };
  if (raw.blocks !== undefined) {
    if (Array.isArray(raw.blocks)) {
      const rendered = renderBlocks(raw.blocks);
      envelope.blocks = rendered.blocks;
      problems.push(...rendered.problems);
    } else {
      problems.push("blocks must be a list of blocks");
    }
  }
  if (raw.toast !== undefined && raw.toast !== null) envelope.toast = clip(asText(raw.toast));
  if (raw.redirect !== undefined && raw.redirect !== null) {
    const redirect = sameOriginPath(raw.redirect);
    if (redirect === null) problems.push(`redirect must be a path on this site starting with "/" (got ${JSON.stringify(asText(raw.redirect).slice(0, 80))}); it was not followed`);
    else envelope.redirect = redirect;
  }
  return envelope;
}

/**
 * The redirect when it stays on this origin, else null. A relative path resolved against two
 * different origins must land on each of them: that rules out `//host`, `/\host` (browsers
 * treat `\` as `/`), `https:…`, `javascript:…`, and control characters browsers strip. And its
 * resolved path must not start with `//`: dot segments (`/.//host`, `/%2e//host`) resolve to one,
 * which a page following the path alone would treat as `//host`.
 */
export function sameOriginPath(value: unknown): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) return null;
  if (!value.startsWith("/") || value.startsWith("//") || value.includes("\\")) return null;
  if (/[\u0000-\u001f\u007f\s]/.test(value)) return null;
  for (const origin of ["http://a.invalid", "https://b.invalid"]) {
    let url: URL;
    try {
      url = new URL(value, origin);
    } catch {
      return null;
    }
    if (url.origin !== origin || url.pathname.startsWith("//")) return null;
  }
  return value;
}

function clip(text: string): string {
  return text.length > TOAST_CHARS ? `${text.slice(0, TOAST_CHARS)}…` : text;
}
