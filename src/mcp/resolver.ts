/**
 * The one resolver behind `tools/list`, `tools/call` and the admins' visibility report.
 *
 * Names share one namespace, in order: boot tools, the caller's own user tools, user tools shared
 * with the caller, plugin tools. The first tool of a name wins and the later ones are "shadowed";
 * then the winner's gates decide whether the caller may see and call it (a hidden winner hides the
 * name: there is no fall-through to a shadowed tool). So a name is never listed twice, and a call
 * reaches exactly the tool the listing showed.
 *
 * One exception, against name squatting: a user tool *shared* with the caller never shadows a
 * plugin tool (it is shadowed instead). Otherwise an untrusted user could share a tool named like
 * a trusted plugin tool and have another user's assistant — an admin's — run it with the caller's
 * authority. The caller's *own* user tools still shadow plugin tools: the caller chose them.
 */
import type { Principal } from "../identity/principal.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { UserToolRecord } from "../store/store.ts";
import type { UserToolsCatalog } from "../tools/user-tools.ts";
import { pluginToolRefusal, userToolRefusal } from "./tool-gates.ts";
import type { BootTool, CandidateTool, Refusal, Verdict } from "./tool-types.ts";

export interface ToolResolver {
  /** Every candidate in namespace order with its verdict for this caller (shadowed ones included). */
  verdicts(principal: Principal): Promise<Verdict[]>;
  /** The tools the caller may see and call, in namespace order. */
  list(principal: Principal): Promise<CandidateTool[]>;
  /**
   * The tool a call by this name reaches, or why not: `unknown` when no tool of the name exists
   * for the caller, otherwise the winner's refusal.
   */
  resolve(principal: Principal, name: string): Promise<{ tool: CandidateTool } | { tool: null; exists: boolean; refusal: Refusal | null }>;
}

export interface ResolverDeps {
  readonly boot: readonly BootTool[];
  readonly catalog: UserToolsCatalog;
  readonly registry: PluginRegistry;
}

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
  const userCandidates = async (principal: Principal): Promise<UserToolRecord[]> =>
    (await deps.catalog.list(principal)).filter((tool) => tool.kind === "tool" && tool.active);

  const candidates = async (principal: Principal): Promise<CandidateTool[]> => [
    ...deps.boot.map((boot): CandidateTool => ({ kind: "boot", name: boot.name, boot })),
    ...(await userCandidates(principal)).map((user): CandidateTool => ({ kind: "user", name: user.name, user })),
    ...deps.registry.mcpTools().map((plugin): CandidateTool => ({ kind: "plugin", name: plugin.decl.name, plugin })),
  ];

  /** A shared (not own) user tool whose name a plugin tool holds: it yields to the plugin tool. */
  const squats = (principal: Principal, tool: CandidateTool): boolean =>
    tool.kind === "user" && tool.user.ownerId !== principal.user.id && deps.registry.mcpTool(tool.name) !== null;

  const verdicts = async (principal: Principal): Promise<Verdict[]> => {
    const winners = new Map<string, CandidateTool>();
    return (await candidates(principal)).map((tool): Verdict => {
      const winner = winners.get(tool.name);
      if (winner) return { tool, visible: false, refusal: { reason: "shadowed", detail: `shadowed by the ${describeKind(winner)} of the same name` } };
      if (squats(principal, tool)) {
        return { tool, visible: false, refusal: { reason: "shadowed", detail: "a shared user tool never shadows plugin tools: the plugin tool of the same name wins" } };
      }
      winners.set(tool.name, tool);
      const refusal = refusalOf(principal, tool);
      return refusal ? { tool, visible: false, refusal } : { tool, visible: true };
    });
  };

  return {
    verdicts,
    async list(principal) {
      return (await verdicts(principal)).filter((v) => v.visible).map((v) => v.tool);
    },
    async resolve(principal, name) {
      const boot = bootByName.get(name);
      let tool: CandidateTool | null = boot ? { kind: "boot", name, boot } : null;
      if (!tool) {
        const user = (await userCandidates(principal)).find((t) => t.name === name && !squats(principal, { kind: "user", name, user: t }));
        if (user) tool = { kind: "user", name, user };
      }
      if (!tool) {
        const plugin = deps.registry.mcpTool(name);
        if (plugin) tool = { kind: "plugin", name, plugin };
      }
      if (!tool) return { tool: null, exists: false, refusal: null };
      const refusal = refusalOf(principal, tool);
      return refusal ? { tool: null, exists: true, refusal } : { tool };
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
