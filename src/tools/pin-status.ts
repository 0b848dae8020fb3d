/**
 * What each of a tool's lib pins points at now, for the editor's "Libs" panel: the pinned lib and
 * version, its owner and current name (a rename shows), its newest version, and whether the pin
 * still works *for the person asking* — the same checks a run makes (pinned-libs.ts).
 */
import type { Store, UserToolRecord } from "../store/store.ts";
import { toolVisible, versionVisible, type Reader } from "./tool-visibility.ts";

export interface PinStatus {
  /** As the code imports it: `lib:<name>`. */
  readonly name: string;
  readonly libId: string;
  readonly version: number;
  /** ok: runs use it; outdated: ok, and the lib has newer versions; the rest fail a run. */
  readonly status: "ok" | "outdated" | "deleted" | "unreadable" | "version-unreadable" | "version-missing";
  readonly owner: string | null;
  /** The lib's name now (it may have been renamed since it was pinned). */
  readonly libName: string | null;
  readonly latestVersion: number | null;
}

export async function describePins(store: Store, reader: Reader, tool: UserToolRecord): Promise<PinStatus[]> {
  const out: PinStatus[] = [];
  for (const pin of tool.libPins) {
    const base = { name: pin.name, libId: pin.libId, version: pin.version };
    const lib = await store.getUserTool(pin.libId);
    if (!lib || lib.kind !== "lib") {
      out.push({ ...base, status: "deleted", owner: null, libName: null, latestVersion: null });
      continue;
    }
    const known = { ...base, owner: lib.ownerName, libName: lib.name, latestVersion: lib.version };
    if (!toolVisible(reader, lib)) {
      // Not the reader's to learn anything about: only that it does not work for them.
      out.push({ ...base, status: "unreadable", owner: null, libName: null, latestVersion: null });
      continue;
    }
    const saved = await store.getUserToolVersion(lib.id, pin.version);
    if (!saved) out.push({ ...known, status: "version-missing" });
    else if (!versionVisible(reader, lib, saved.tool)) out.push({ ...known, status: "version-unreadable" });
    else out.push({ ...known, status: lib.version > pin.version ? "outdated" : "ok" });
  }
  return out;
}
