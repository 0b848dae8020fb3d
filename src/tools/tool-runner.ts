/**
 * Runs user code in the sandbox as the requesting user. The host decides everything a run may
 * reach: which modules resolve (client modules of loaded plugins, libs the caller may use), who
 * the caller is (inert data, scopes applied), and the one loopback token the worker will present
 * for `knot:plugin.call` — minted for this run and revoked when it ends.
 */
import { randomUUID } from "node:crypto";
import { prepareSource } from "../../client-modules/index.ts";
import type { RunEntry, RunEvent, RunLimits, RunOutcome } from "../../sandbox/protocol.ts";
import type { LoopbackTokens, MintedLoopbackToken } from "../auth/loopback-tokens.ts";
import { KnotError } from "../errors.ts";
import { mayWrite, toUserData, type Principal } from "../identity/principal.ts";
import { scopeAllows } from "../identity/scopes.ts";
import { parametersToJsonSchema } from "../plugins/manifest/index.ts";
import type { JsonSchemaObject, ParameterDecl, ParameterShape } from "../plugins/manifest-types.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { UserToolParameter, UserToolRecord, UserToolSummary } from "../store/store.ts";
import { validateArguments } from "../validation/json-schema.ts";
import { collectModuleSet } from "./module-set.ts";
import type { Quotas } from "./quotas.ts";
import type { UserToolsCatalog } from "./user-tools.ts";
import { GUEST_INPUT_PARAM } from "../../sandbox/guest/bindings.ts";

/** A scoped token must name this (or a glob over it) to run user tools at all. */
export const RUN_USER_TOOLS_SCOPE = "knot.tools.run";

export interface SandboxRunner {
  run(job: import("../../sandbox/protocol.ts").RunJob, hooks: import("../../sandbox/protocol.ts").RunHooks): Promise<RunOutcome>;
}

export interface RunSource {
  readonly name: string;
  readonly code: string;
  readonly language: "js" | "ts";
  readonly parameters?: readonly UserToolParameter[];
  readonly destructive?: boolean;
}

export interface RunOptions {
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: RunEvent) => void;
  readonly requestId?: string | null;
  /** Skip schema validation (arguments were already validated by the caller). */
  readonly validated?: boolean;
  /**
   * "sink": the sink dispatcher delivers an event (`args` is `{id, type, at, data}`) to a saved
   * sink, whose default export gets the event itself. Host code only; absent = a tool run.
   */
  readonly entry?: RunEntry;
  /** The assistant of the MCP call that started the run: the handlers it calls over the loopback see it. */
  readonly assistant?: Principal["assistant"];
  /**
   * An MCP call's input round (answers so far, the client's capabilities): the guest's `ask()` and
   * friends read it from a reserved argument that only this option fills. A caller's own argument
   * of that name is dropped on every path, or a run outside MCP could answer the tool's questions.
   */
  readonly input?: unknown;
}

export interface ToolRunner {
  /** Validates arguments against the tool's schema (throws INVALID_ARGUMENT), then runs it. */
  run(principal: Principal, source: RunSource | UserToolRecord | UserToolSummary, args: Record<string, unknown>, options?: RunOptions): Promise<RunOutcome>;
  schemaOf(source: { parameters?: readonly UserToolParameter[] }): JsonSchemaObject;
  /** Whether the credential's scopes let it run user tools (and write-tools when destructive). */
  mayRun(principal: Principal, source: { destructive?: boolean }): boolean;
}

export interface ToolRunnerDeps {
  readonly sandbox: SandboxRunner;
  readonly catalog: UserToolsCatalog;
  readonly registry: PluginRegistry;
  readonly loopbackTokens: LoopbackTokens;
  readonly limits: RunLimits;
  /** The server's own base URL (loopback); null when not listening (then call() fails clearly). */
  readonly loopbackBase: () => string | null;
  readonly tokenTtlMs: number;
  /** The credential's principal read again (Authenticator.refresh), for a run that waited in the queue. */
  readonly refreshPrincipal?: (principal: Principal) => Promise<Principal | null>;
  /** Per-user/per-token quotas and the global run cap; absent = unlimited (tests of other parts). */
  readonly quotas?: Quotas;
}

/**
 * A run that waited longer than this in its user's line gets its loopback principal read again when
 * it starts, so a grant revoked meanwhile is gone (docs/security.md: the snapshot is taken at start).
 */
const STALE_PRINCIPAL_MS = 1_000;

const schemas = new WeakMap<object, JsonSchemaObject>();

export function toParameterDecls(parameters: readonly UserToolParameter[] = []): ParameterDecl[] {
  return parameters.map((p) => ({
    name: p.name, ...toShape(p), required: p.required === true,
    ...(p.default !== undefined ? { default: p.default } : {}),
  }));
}

function toShape(p: Omit<UserToolParameter, "name" | "required" | "default">): ParameterShape {
  return {
    type: p.type, description: p.description ?? "", ...(p.enum ? { enum: p.enum } : {}),
    secret: p.secret === true, personal: p.personal === true,
    ...(p.properties ? { properties: toParameterDecls(p.properties) } : {}),
    ...(p.items ? { items: toShape(p.items) } : {}),
  };
}

export function createToolRunner(deps: ToolRunnerDeps): ToolRunner {
  const schemaOf: ToolRunner["schemaOf"] = (source) => {
    const key = source.parameters ?? [];
    let schema = schemas.get(key);
    if (!schema) {
      schema = parametersToJsonSchema(toParameterDecls(source.parameters));
      schemas.set(key, schema);
    }
    return schema;
  };
  const mayRun: ToolRunner["mayRun"] = (principal, source) =>
    scopeAllows(principal.scopes, RUN_USER_TOOLS_SCOPE) && (source.destructive !== true || mayWrite(principal));

  return {
    schemaOf,
    mayRun,
    async run(principal, source, args, options = {}) {
      if (!mayRun(principal, source)) {
        const why = scopeAllows(principal.scopes, RUN_USER_TOOLS_SCOPE) ? "a read-only token may not run a tool marked destructive" : `the token's scopes do not include ${RUN_USER_TOOLS_SCOPE}`;
        throw new KnotError("PERMISSION_DENIED", `permission denied: ${why}`);
      }
      if (options.entry === "sink" && !("kind" in source && source.kind === "sink")) {
        throw new KnotError("BAD_REQUEST", `"${source.name}" is not a sink: only a saved sink is run with an event`);
      }
      const { [GUEST_INPUT_PARAM]: _dropped, ...given } = args;
      const checked = options.validated ? given : validateArguments(schemaOf(source), given, source.name);
      const params = options.input === undefined ? checked : { ...checked, [GUEST_INPUT_PARAM]: options.input };
      // When the principal was read: a run waits for its quota slot first, then in the sandbox's line.
      const askedAt = performance.now();
      const release = deps.quotas ? await deps.quotas.acquire(principal, options.signal, options.entry) : () => {};
      try {
        return await runAdmitted(principal, source, params, options, askedAt);
      } finally {
        release();
      }
    },
  };

  async function runAdmitted(principal: Principal, listed: RunSource | UserToolSummary, params: Record<string, unknown>, options: RunOptions, askedAt: number): Promise<RunOutcome> {
    const started = performance.now();
    // A listed tool comes without its code: exactly the listed version's (tool-sources.ts).
    const source = "code" in listed ? listed : await deps.catalog.withCode(listed);
    const prepared = prepareSource(source.code, source.language, `tool:${source.name}`);
    if (!prepared.ok) {
      const first = prepared.diagnostics[0];
      const where = first ? ` (line ${first.line}, column ${first.column})` : "";
      return { ok: false, error: { code: "SYNTAX_ERROR", message: `${first?.message ?? "the tool does not compile"}${where}` }, log: [], durationMs: performance.now() - started };
    }
    // Exactly the pinned lib versions, checked against this caller before anything runs (lib-pins.ts).
    const libs = await deps.catalog.libModules(principal, source);
    if (!libs.ok) return { ok: false, error: { code: "MODULE_NOT_ALLOWED", message: libs.message }, log: [], durationMs: performance.now() - started };
    const resolve = (specifier: string): string | null => resolveModule(deps, libs.modules, specifier);
    // The whole module set goes with the job: the worker links without a round trip per import.
    const modules = collectModuleSet(prepared.js, resolve);
    const runId = randomUUID();
    const base = deps.loopbackBase();
    const acting = options.assistant ? { ...principal, assistant: options.assistant } : principal;
    const minted = base ? deps.loopbackTokens.mint(acting, runId, deps.limits.wallMs + deps.tokenTtlMs) : null;
    // The token's lifetime (wall + ttl) counts from dispatch; its principal is read again if the run waited
    // (for its quota slot or in the sandbox's line) since the principal was read.
    const dispatched = (token: MintedLoopbackToken) => {
      token.restartClock();
      const refresh = deps.refreshPrincipal;
      if (refresh && performance.now() - askedAt > STALE_PRINCIPAL_MS) token.refresh(refresh(acting).then((fresh) => fresh && { ...acting, ...fresh }));
    };
    try {
      return await deps.sandbox.run({
        runId, source: prepared.js, filename: `tool:${source.name}`, params, user: toUserData(principal),
        loopback: base && minted ? { baseUrl: base, token: minted.token } : null,
        limits: deps.limits, ...(options.requestId ? { requestId: options.requestId } : {}),
        ...(options.entry === "sink" ? { entry: "sink" as const } : {}),
        ...(modules !== undefined ? { modules } : {}),
      }, {
        resolveModule: resolve,
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(minted ? { onDispatch: () => dispatched(minted) } : {}),
      });
    } finally {
      minted?.revoke();
    }
  }
}

function resolveModule(deps: ToolRunnerDeps, libs: ReadonlyMap<string, string>, specifier: string): string | null {
  if (specifier.startsWith("plugin:")) return deps.registry.clientModule(specifier);
  return libs.get(specifier) ?? null;
}
