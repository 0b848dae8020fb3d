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
import type { Store, ToolKind, UserToolRecord, UserToolVersion } from "../store/store.ts";
import { parseUserToolInput } from "./user-tool-input.ts";

export interface SavedTool {
  readonly tool: UserToolRecord;
  readonly diagnostics: readonly Diagnostic[];
}

export interface UserToolsCatalog {
  /** Own tools and libs first, then those shared with the caller. */
  list(principal: Principal): Promise<UserToolRecord[]>;
  get(principal: Principal, id: string): Promise<UserToolRecord>;
  create(principal: Principal, body: Record<string, unknown>): Promise<SavedTool>;
  update(principal: Principal, id: string, body: Record<string, unknown>): Promise<SavedTool>;
  remove(principal: Principal, id: string): Promise<void>;
  versions(principal: Principal, id: string): Promise<UserToolVersion[]>;
  version(principal: Principal, id: string, version: number): Promise<UserToolVersion>;
  /** Compile and lint source as the caller would run it; diagnostics carry line and column. */
  check(principal: Principal, source: { code: string; language?: "js" | "ts"; kind?: "tool" | "lib" }): Promise<Diagnostic[]>;
  /** Active tools (kind tool) the caller may run, one per name: own before shared. */
  runnable(principal: Principal): Promise<UserToolRecord[]>;
  /**
   * The lib `lib:<name>` means for code written by `authorId` (default: the caller), when the
   * caller runs it: the lib the author would import (their own first, then one shared with them),
   * and only if the caller may use that very lib — never a substitute (no lib squatting).
   */
  lib(principal: Principal, name: string, authorId?: string): Promise<UserToolRecord | null>;
  /** Has this caller the right to see this tool? (owner, everyone, or one of their groups) */
  visible(principal: Principal, tool: UserToolRecord): boolean;
}

export interface CatalogOptions {
  /** Told after a tool is saved (with the version it replaced) or deleted (previous null), e.g. to notify MCP sessions. */
  readonly onChange?: (tool: UserToolRecord, previous: UserToolRecord | null) => void;
  /** Told after a save or delete, with who did it (event sinks' `tool.saved` / `tool.deleted`). */
  readonly onEvent?: (type: "tool.saved" | "tool.deleted", tool: UserToolRecord, by: Principal) => Promise<void>;
}

export function createUserToolsCatalog(store: Store, registry: PluginRegistry, options: CatalogOptions = {}): UserToolsCatalog {
  const visible = (principal: Principal, tool: UserToolRecord) =>
    tool.ownerId === principal.user.id || (tool.active && (tool.sharing === "everyone" || (tool.sharing.startsWith("@") && principal.groups.includes(tool.sharing.slice(1)))));
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
  const lint = async (principal: Principal, code: string, language: "js" | "ts", kind: ToolKind, name: string) => {
    const libs = (await listFor(principal)).filter((t) => t.kind === "lib").map((t) => t.name);
    const policy = userToolImportPolicy({ clientModuleSpecifiers: registry.clientModuleSpecifiers(), libNames: new Set(libs) });
    return lintModule(code, { language, filename: `${kind}:${name}`, policy, requireEntry: kind !== "lib" }).diagnostics;
  };

  const catalog: UserToolsCatalog = {
    visible,
    list: listFor,
    get: getVisible,
    async create(principal, body) {
      mustAuthor(principal);
      const input = parseUserToolInput(body);
      if (input.kind === "sink") mayKeepSinks(principal, input.events ?? []);
      const tool = await store.createUserTool(principal.user.id, input);
      options.onChange?.(tool, null);
      await options.onEvent?.("tool.saved", tool, principal);
      return { tool, diagnostics: await lint(principal, input.code, input.language, input.kind, input.name) };
    },
    async update(principal, id, body) {
      mustAuthor(principal);
      const current = await owned(principal, id);
      const input = parseUserToolInput(body, current);
      if (input.kind === "sink") mayKeepSinks(principal, input.events ?? []);
      const expected = body.expectedVersion;
      if (expected !== undefined && !Number.isInteger(expected)) throw new KnotError("INVALID_ARGUMENT", "expectedVersion must be an integer", { where: "expectedVersion" });
      const tool = await store.updateUserTool(id, principal.user.id, input, expected as number | undefined);
      options.onChange?.(tool, current);
      await options.onEvent?.("tool.saved", tool, principal);
      return { tool, diagnostics: await lint(principal, input.code, input.language, input.kind, input.name) };
    },
    async remove(principal, id) {
      mustAuthor(principal);
      const current = await owned(principal, id);
      await store.deleteUserTool(id);
      options.onChange?.(current, null);
      await options.onEvent?.("tool.deleted", current, principal);
    },
    async versions(principal, id) {
      await getVisible(principal, id);
      return store.listUserToolVersions(id);
    },
    async version(principal, id, version) {
      await getVisible(principal, id);
      const found = await store.getUserToolVersion(id, version);
      if (!found) throw new KnotError("NOT_FOUND", `tool "${id}" has no version ${version}`);
      return found;
    },
    async check(principal, source) {
      if (typeof source.code !== "string") throw new KnotError("INVALID_ARGUMENT", "code is required", { where: "code" });
      return lint(principal, source.code, source.language === "ts" ? "ts" : "js", source.kind === "lib" ? "lib" : "tool", "check");
    },
    async runnable(principal) {
      const seen = new Set<string>();
      return (await listFor(principal)).filter((tool) => {
        if (tool.kind !== "tool" || !tool.active || seen.has(tool.name)) return false;
        seen.add(tool.name);
        return true;
      });
    },
    async lib(principal, name, authorId = principal.user.id) {
      const usableBy = (userId: string) => (tool: UserToolRecord) => tool.kind === "lib" && tool.name === name && (tool.active || tool.ownerId === userId);
      if (authorId === principal.user.id) return (await listFor(principal)).find(usableBy(authorId)) ?? null;
      const authors = (await store.listUserToolsVisibleTo(authorId, await store.groupsOf(authorId))).find(usableBy(authorId));
      return authors && visible(principal, authors) ? authors : null;
    },
  };
  return catalog;
}
