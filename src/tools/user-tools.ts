/**
 * User tools and libs: the untrusted side. Stored per owner with every version kept, shared
 * privately, with a group or with everyone, and always run as the *requesting* user (never as
 * the owner) in the sandbox, with a loopback token minted for that one run.
 */
import { lintModule, userToolImportPolicy, type Diagnostic } from "../../client-modules/index.ts";
import { KnotError } from "../errors.ts";
import { BUILTIN_PERMISSIONS, hasPermission, mayWrite, type Principal } from "../identity/principal.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import { checkSubscriptions } from "../events/event-types.ts";
import type { LibPin, Store, ToolKind, UserToolInput, UserToolRecord, UserToolSummary, UserToolVersion } from "../store/store.ts";
import { libsOf, pinLibs } from "./lib-pins.ts";
import { loadPinnedLibs, type PinnedModules } from "./pinned-libs.ts";
import { describePins, type PinStatus } from "./pin-status.ts";
import { qualifiedName } from "./tool-names.ts";
import { DEFAULT_QUOTAS } from "./quotas.ts";
import { createToolSources } from "./tool-sources.ts";
import { toolVisible, versionVisible } from "./tool-visibility.ts";
import { MAX_CODE_BYTES, parseUserToolInput } from "./user-tool-input.ts";

export interface SavedTool {
  readonly tool: UserToolRecord;
  readonly diagnostics: readonly Diagnostic[];
}

export interface UserToolsCatalog {
  /** Own tools and libs first, then those shared with the caller (without their code: see withCode). */
  list(principal: Principal): Promise<UserToolSummary[]>;
  /** A listed tool with the code of exactly its listed version; NOT_FOUND once that tool is deleted. */
  withCode(tool: UserToolSummary): Promise<UserToolRecord>;
  get(principal: Principal, id: string): Promise<UserToolRecord>;
  create(principal: Principal, body: Record<string, unknown>): Promise<SavedTool>;
  update(principal: Principal, id: string, body: Record<string, unknown>): Promise<SavedTool>;
  remove(principal: Principal, id: string): Promise<void>;
  /** Newest first; someone else's tool shows only the versions that were shared with the caller when saved. */
  versions(principal: Principal, id: string): Promise<UserToolVersion[]>;
  version(principal: Principal, id: string, version: number): Promise<UserToolVersion>;
  /** The tool's lib pins, each with what it points at now (for the editor's panel). */
  libPins(principal: Principal, id: string): Promise<PinStatus[]>;
  /** Owner only: moves each pin to its lib's newest version (re-pinning by name only a lib that is gone); a new version when a pin changed. */
  updateLibs(principal: Principal, id: string): Promise<SavedTool & { changed: boolean }>;
  /** The lib modules a run of this source may load (pinned versions; a draft pins as a save would now). */
  libModules(principal: Principal, source: { code: string; language: "js" | "ts"; libPins?: readonly LibPin[]; id?: string }): Promise<PinnedModules>;
  /** Compile and lint source as the caller would run it; diagnostics carry line and column. */
  check(principal: Principal, source: { code: string; language?: "js" | "ts"; kind?: "tool" | "lib" }): Promise<Diagnostic[]>;
  /** Has this caller the right to see this tool? (owner, everyone, or one of their groups) */
  visible(principal: Principal, tool: UserToolSummary): boolean;
}

export interface CatalogOptions {
  /** Tools, libs and sinks one user may keep (QUOTA_EXCEEDED past it); absent = DEFAULT_QUOTAS.userTools. */
  readonly maxToolsPerUser?: number;
  /** Told after a tool is saved (with the version it replaced) or deleted (previous null), e.g. to notify MCP sessions. */
  readonly onChange?: (tool: UserToolRecord, previous: UserToolRecord | null) => void;
  /** Told after a save or delete, with who did it (event sinks' `tool.saved` / `tool.deleted`). */
  readonly onEvent?: (type: "tool.saved" | "tool.deleted", tool: UserToolRecord, by: Principal) => Promise<void>;
}

export function createUserToolsCatalog(store: Store, registry: PluginRegistry, options: CatalogOptions = {}): UserToolsCatalog {
  const visible = (principal: Principal, tool: UserToolSummary) => toolVisible(principal, tool);
  const sources = createToolSources(store);
  const listFor = (principal: Principal) => store.listUserToolsVisibleTo(principal.user.id, principal.groups);
  const getVisible = async (principal: Principal, id: string) => {
    const tool = await store.getUserTool(id);
    if (!tool || !visible(principal, tool)) throw new KnotError("NOT_FOUND", `no tool with id "${id}" is visible to you`);
    return tool;
  };
  const mustAuthor = (principal: Principal) => {
    if (!hasPermission(principal, BUILTIN_PERMISSIONS.toolsAuthor)) throw new KnotError("PERMISSION_DENIED", `permission denied: writing tools needs ${BUILTIN_PERMISSIONS.toolsAuthor}`);
    if (!mayWrite(principal)) throw new KnotError("PERMISSION_DENIED", "permission denied: this token may not change things");
  };
  // A sink runs later as its owner with the owner's full rights: a scoped credential saving one
  // would launder its scopes away, so only an unscoped one (web session of an unscoped token) may.
  const mayKeepSinks = (principal: Principal, events: readonly string[]) => {
    if (principal.scopes !== null) throw new KnotError("PERMISSION_DENIED", "permission denied: a sink runs with its owner's full rights, so saving one needs an unscoped credential");
    checkSubscriptions(registry, events);
  };
  const owned = async (principal: Principal, id: string) => {
    const tool = await getVisible(principal, id);
    if (tool.ownerId !== principal.user.id) throw new KnotError("PERMISSION_DENIED", "permission denied: only the owner can change a tool");
    return tool;
  };
  const author = (principal: Principal) => ({ id: principal.user.id, groups: principal.groups });
  const lint = async (principal: Principal, code: string, language: "js" | "ts", kind: ToolKind, name: string) => {
    const libs = await libsOf(store, author(principal));
    const names = libs.flatMap((t) => (t.ownerId === principal.user.id ? [t.name] : [t.name, qualifiedName(t.ownerName, t.name)]));
    const policy = userToolImportPolicy({ clientModuleSpecifiers: registry.clientModuleSpecifiers(), libNames: new Set(names) });
    return lintModule(code, { language, filename: `${kind}:${name}`, policy, requireEntry: kind !== "lib" }).diagnostics;
  };
  /** The input with its lib pins: kept for names already pinned (`keep`), new ones pinned now. */
  const pinned = async (principal: Principal, input: UserToolInput, previous: readonly LibPin[] | null, update = false) => {
    const outcome = await pinLibs(store, author(principal), input.code, input.language, previous, update);
    return { input: { ...input, libPins: outcome.pins }, diagnostics: outcome.diagnostics };
  };

  const catalog: UserToolsCatalog = {
    visible,
    list: listFor,
    withCode: sources.withCode,
    get: getVisible,
    async create(principal, body) {
      mustAuthor(principal);
      const { input, diagnostics } = await pinned(principal, parseUserToolInput(body), null);
      if (input.kind === "sink") mayKeepSinks(principal, input.events ?? []);
      const tool = await store.createUserTool(principal.user.id, input, options.maxToolsPerUser ?? DEFAULT_QUOTAS.userTools);
      options.onChange?.(tool, null);
      await options.onEvent?.("tool.saved", tool, principal);
      return { tool, diagnostics: [...await lint(principal, input.code, input.language, input.kind, input.name), ...diagnostics] };
    },
    async update(principal, id, body) {
      mustAuthor(principal);
      const current = await owned(principal, id);
      const { input, diagnostics } = await pinned(principal, parseUserToolInput(body, current), current.libPins);
      if (input.kind === "sink") mayKeepSinks(principal, input.events ?? []);
      const expected = body.expectedVersion;
      if (expected !== undefined && !Number.isInteger(expected)) throw new KnotError("INVALID_ARGUMENT", "expectedVersion must be an integer", { where: "expectedVersion" });
      const tool = await store.updateUserTool(id, principal.user.id, input, expected as number | undefined);
      options.onChange?.(tool, current);
      await options.onEvent?.("tool.saved", tool, principal);
      return { tool, diagnostics: [...await lint(principal, input.code, input.language, input.kind, input.name), ...diagnostics] };
    },
    async remove(principal, id) {
      mustAuthor(principal);
      const current = await owned(principal, id);
      await store.deleteUserTool(id);
      options.onChange?.(current, null);
      await options.onEvent?.("tool.deleted", current, principal);
    },
    async versions(principal, id) {
      const tool = await getVisible(principal, id);
      return (await store.listUserToolVersions(id)).filter((saved) => versionVisible(principal, tool, saved.tool));
    },
    async version(principal, id, version) {
      const tool = await getVisible(principal, id);
      const found = await store.getUserToolVersion(id, version);
      // A version saved before it was shared with the caller looks exactly like one that never existed.
      if (!found || !versionVisible(principal, tool, found.tool)) throw new KnotError("NOT_FOUND", `tool "${id}" has no version ${version} visible to you`);
      return found;
    },
    async libPins(principal, id) {
      const tool = await getVisible(principal, id);
      return describePins(store, principal, tool);
    },
    async updateLibs(principal, id) {
      mustAuthor(principal);
      const current = await owned(principal, id);
      // New pins change the code a sink runs as its owner: the same rule as saving the sink.
      if (current.kind === "sink") mayKeepSinks(principal, current.events ?? []);
      const base = parseUserToolInput({}, current);
      const { input, diagnostics } = await pinned(principal, base, current.libPins, true);
      if (JSON.stringify(input.libPins) === JSON.stringify(current.libPins)) return { tool: current, diagnostics, changed: false };
      const tool = await store.updateUserTool(id, principal.user.id, input, current.version);
      options.onChange?.(tool, current);
      return { tool, diagnostics, changed: true };
    },
    async libModules(principal, source) {
      if (source.id !== undefined && source.libPins !== undefined) {
        return loadPinnedLibs(store, principal, { code: source.code, language: source.language, libPins: source.libPins, saved: true });
      }
      const { pins } = await pinLibs(store, author(principal), source.code, source.language, null);
      return loadPinnedLibs(store, principal, { code: source.code, language: source.language, libPins: pins, saved: false });
    },
    async check(principal, source) {
      if (typeof source.code !== "string") throw new KnotError("INVALID_ARGUMENT", "code is required", { where: "code" });
      if (Buffer.byteLength(source.code) > MAX_CODE_BYTES) throw new KnotError("INVALID_ARGUMENT", `code is over ${MAX_CODE_BYTES} bytes`, { where: "code" });
      const language = source.language === "ts" ? "ts" : "js";
      // The lib names a save could not pin (ambiguous) show as you type, not only on save.
      const { diagnostics } = await pinLibs(store, author(principal), source.code, language, null);
      return [...await lint(principal, source.code, language, source.kind === "lib" ? "lib" : "tool", "check"), ...diagnostics];
    },
  };
  return catalog;
}
