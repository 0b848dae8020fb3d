/**
 * The one resolver behind `tools/list`, `tools/call`, `tool_search`/`execute_tool` and the admins'
 * visibility report.
 *
 * Names share one namespace, in order: boot tools, the caller's own user tools (bare names), user
 * tools shared with the caller (owner-qualified names, `alice__weekly_report`: see
 * ../tools/tool-names.ts), plugin tools. The first tool of a name wins and the later ones are
 * "shadowed"; then the winner's gates decide whether the caller may see and call it (a hidden
 * winner hides the name: there is no fall-through to a shadowed tool). So a name is never listed
 * twice, and a call reaches exactly the tool the listing showed.
 *
 * Against name squatting (an untrusted author getting their code into another user's — an
 * admin's — call, where it runs with the caller's authority):
 * - a shared tool is reachable only by its qualified name, which only its owner can fill; a bare
 *   name held only by shared tools is refused as ambiguous (never resolved, even with one holder,
 *   since a second sharer, a rename or a delete-and-recreate would silently change its meaning);
 * - a shared tool never shadows a plugin tool (it is shadowed instead), and two shared tools with
 *   one qualified name (only possible with names saved before `__` was refused) are both hidden.
 * The caller's *own* user tools still shadow plugin tools: the caller chose them.
 */
import type { Principal } from "../identity/principal.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { UserToolSummary } from "../store/store.ts";
import { callableName } from "../tools/tool-names.ts";
import { createMarkCache } from "../store/mark-cache.ts";
import type { UserToolsCatalog } from "../tools/user-tools.ts";
import { pluginToolRefusal, userToolRefusal } from "./tool-gates.ts";
import type { BootTool, CandidateTool, Refusal, Verdict } from "./tool-types.ts";

export interface ToolResolver {
  /** Every candidate in namespace order with its verdict for this caller (shadowed ones included). */
  verdicts(principal: Principal): Promise<Verdict[]>;
  /** The tools the caller may see and call, in namespace order. */
  list(principal: Principal): Promise<CandidateTool[]>;
  /**
   * The tool a call by this name reaches, or why not: `exists: false` when no tool of the name
   * exists for the caller, otherwise the winner's refusal; `ambiguous` lists the qualified names
   * of the shared tools a bare name could mean (the caller must pick one).
   */
  resolve(principal: Principal, name: string): Promise<Resolved>;
}

export type Resolved =
  | { readonly tool: CandidateTool }
  | { readonly tool: null; readonly exists: boolean; readonly refusal: Refusal | null; readonly ambiguous?: readonly string[] };

export interface ResolverDeps {
  readonly boot: readonly BootTool[];
  readonly catalog: UserToolsCatalog;
  readonly registry: PluginRegistry;
  /** The store's change mark (Store.changeMark): user-tool lists are kept while it is unchanged. */
  readonly changeMark?: () => string;
}

const MAX_CACHED_LISTS = 1024;

export function createToolResolver(deps: ResolverDeps): ToolResolver {
  const bootByName = new Map(deps.boot.map((tool) => [tool.name, tool]));

  const refusalOf = (principal: Principal, tool: CandidateTool): Refusal | null => {
    switch (tool.kind) {
      case "boot": return tool.boot.gate(principal);
      case "user": return userToolRefusal(principal, tool.user);
      case "plugin": return pluginToolRefusal(principal, tool.plugin);
    }
  };

  /** Own tools first, then shared ones (the store's order), active tools of kind "tool" only. */
  const readUserCandidates = async (principal: Principal): Promise<UserToolSummary[]> =>
    (await deps.catalog.list(principal)).filter((tool) => tool.kind === "tool" && tool.active);

  // The list depends only on the user, their groups and the stored tools: a listing or call reuses
  // it until anything is written (the change mark moves; records are frozen, the array is not handed out).
  const listed = createMarkCache<readonly UserToolSummary[]>(deps.changeMark, MAX_CACHED_LISTS);
  const userCandidates = async (principal: Principal): Promise<readonly UserToolSummary[]> =>
    (await listed(`${principal.user.id}\u0000${principal.groups.join("\u0000")}`, () => readUserCandidates(principal))) ?? [];

  const candidates = async (principal: Principal): Promise<CandidateTool[]> => [
    ...deps.boot.map((boot): CandidateTool => ({ kind: "boot", name: boot.name, boot })),
    ...(await userCandidates(principal)).map((user): CandidateTool => ({ kind: "user", name: callableName(principal.user.id, user), user })),
    ...deps.registry.mcpTools().map((plugin): CandidateTool => ({ kind: "plugin", name: plugin.decl.name, plugin })),
  ];

  const isShared = (principal: Principal, tool: CandidateTool): boolean => tool.kind === "user" && tool.user.ownerId !== principal.user.id;

  /** A shared (not own) user tool whose name a plugin tool holds: it yields to the plugin tool. */
  const squats = (principal: Principal, tool: CandidateTool): boolean =>
    isShared(principal, tool) && deps.registry.mcpTool(tool.name) !== null;

  /** The verdicts of `all`; a tool's depends only on the tools of its own name, so any name-closed subset gives the same ones. */
  const judge = (principal: Principal, all: readonly CandidateTool[]): Verdict[] => {
    const winners = new Map<string, CandidateTool>();
    const sharedNames = new Map<string, number>();
    for (const tool of all) if (isShared(principal, tool)) sharedNames.set(tool.name, (sharedNames.get(tool.name) ?? 0) + 1);
    return all.map((tool): Verdict => {
      const winner = winners.get(tool.name);
      if (winner) return { tool, visible: false, refusal: { reason: "shadowed", detail: `shadowed by the ${describeKind(winner)} of the same name` } };
      if (squats(principal, tool)) {
        return { tool, visible: false, refusal: { reason: "shadowed", detail: "a shared user tool never shadows plugin tools: the plugin tool of the same name wins" } };
      }
      if (isShared(principal, tool) && sharedNames.get(tool.name)! > 1) {
        return { tool, visible: false, refusal: { reason: "ambiguous", detail: "another shared tool has the same qualified name (saved before \"__\" was refused in names): both are hidden" } };
      }
      winners.set(tool.name, tool);
      const refusal = refusalOf(principal, tool);
      return refusal ? { tool, visible: false, refusal } : { tool, visible: true };
    });
  };

  const verdicts = async (principal: Principal): Promise<Verdict[]> => judge(principal, await candidates(principal));

  /**
   * What resolve needs for `name`, without building or judging every tool: the candidates named
   * `name` or whose unqualified name it is (shared tools), with every other candidate of those
   * names, in the order `candidates` gives them. A call costs the same however many plugin tools
   * are installed.
   */
  const verdictsFor = async (principal: Principal, name: string): Promise<Verdict[]> => {
    const users = await userCandidates(principal);
    const names = new Set<string>([name]);
    for (const user of users) if (user.name === name) names.add(callableName(principal.user.id, user));
    const subset: CandidateTool[] = [];
    for (const boot of deps.boot) if (names.has(boot.name)) subset.push({ kind: "boot", name: boot.name, boot });
    for (const user of users) {
      const callable = callableName(principal.user.id, user);
      if (names.has(callable)) subset.push({ kind: "user", name: callable, user });
    }
    // Plugin tool names are unique, so each name has at most one.
    for (const toolName of names) {
      const plugin = deps.registry.mcpTool(toolName);
      if (plugin) subset.push({ kind: "plugin", name: plugin.decl.name, plugin });
    }
    return judge(principal, subset);
  };

  return {
    verdicts,
    async list(principal) {
      return (await verdicts(principal)).filter((v) => v.visible).map((v) => v.tool);
    },
    async resolve(principal, name) {
      const boot = bootByName.get(name);
      if (boot) {
        const tool: CandidateTool = { kind: "boot", name, boot };
        const refusal = refusalOf(principal, tool);
        return refusal ? { tool: null, exists: true, refusal } : { tool };
      }
      const all = await verdictsFor(principal, name);
      // The first verdict of the name is its winner (or the reason the name is hidden); the others are shadowed.
      const winner = all.find((v) => v.tool.name === name && (v.visible || v.refusal.reason !== "shadowed"));
      if (winner) return winner.visible ? { tool: winner.tool } : { tool: null, exists: true, refusal: winner.refusal };
      const sharing = all.filter((v) => v.visible && v.tool.kind === "user" && isShared(principal, v.tool) && v.tool.user.name === name);
      if (sharing.length > 0) return { tool: null, exists: true, refusal: null, ambiguous: sharing.map((v) => v.tool.name) };
      return { tool: null, exists: all.some((v) => v.tool.name === name), refusal: null };
    },
  };
}

export function describeKind(tool: CandidateTool): string {
  switch (tool.kind) {
    case "boot": return "built-in tool";
    case "user": return "user tool";
    case "plugin": return `tool of plugin ${tool.plugin.plugin.name}`;
  }
}
