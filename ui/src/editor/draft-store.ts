/**
 * Unsaved drafts kept in sessionStorage (this tab only, gone when it closes), keyed by user and
 * tool, with the version they were made to. A session that ends swaps the editor for sign-in
 * (any 401), and the editor's state goes with it: this is what brings the work back.
 */
import type { Draft } from "./draft.ts";

export interface StoredDraft {
  /** The saved version the draft was made to: saving it expects this version. */
  version: number;
  draft: Draft;
}

const PREFIX = "knot:draft:";
const keyOf = (userId: string, toolId: string) => `${PREFIX}${userId}:${toolId}`;

export function keepDraft(userId: string, toolId: string, stored: StoredDraft): void {
  try {
    sessionStorage.setItem(keyOf(userId, toolId), JSON.stringify(stored));
  } catch {
    // storage full or disabled: the leave guard still protects the draft while the page lives
  }
}

export function storedDraft(userId: string, toolId: string): StoredDraft | null {
  try {
    const stored = JSON.parse(sessionStorage.getItem(keyOf(userId, toolId)) ?? "null") as StoredDraft | null;
    return stored && typeof stored.version === "number" && typeof stored.draft?.code === "string" ? stored : null;
  } catch {
    return null;
  }
}

export function forgetDraft(userId: string, toolId: string): void {
  try {
    sessionStorage.removeItem(keyOf(userId, toolId));
  } catch {
    // nothing kept
  }
}

/** Signing out on purpose leaves no draft behind in the tab. */
export function forgetAllDrafts(): void {
  try {
    for (const key of Object.keys(sessionStorage)) if (key.startsWith(PREFIX)) sessionStorage.removeItem(key);
  } catch {
    // nothing kept
  }
}
