/**
 * One function, one answer to "does it change things". Its `[[tool.knot.handlers]]` entry and
 * every `[[tool.knot.mcp_tools]]` naming it must carry the same mark — none, `write`, or
 * `destructive` (which implies write) — since each path to the function (URL, call(), the
 * loopback, each tool) is gated by its own declaration: a weaker one would let a read-only token
 * through. A page must not name a function any of them marks (pages are rendered on GET).
 * Reads the raw tables, so a declaration refused elsewhere still counts; malformed values are
 * reported by check-handlers.ts and check-mcp-tools.ts, not here.
 */
import { describeValue, isTable } from "./checks.ts";
import type { TomlTable } from "./checks.ts";
import type { DeclarationContext } from "./declaration-context.ts";
import { formatKeyPath } from "./key-path.ts";
import type { KeyPath } from "./key-path.ts";

type Mark = "write" | "destructive";

interface Declaration {
  readonly handler: string;
  readonly mark: Mark | null;
  readonly path: KeyPath;
}

const STRENGTH = { none: 0, write: 1, destructive: 2 } as const;
const strength = (mark: Mark | null) => STRENGTH[mark ?? "none"];

/** Reports every handlers entry, MCP tool and page that disagrees with the strongest mark of its function. */
export function checkChangeMarks(knot: TomlTable, path: KeyPath, context: DeclarationContext): void {
  const declarations = [...declarationsIn(knot, "handlers", path), ...declarationsIn(knot, "mcp_tools", path)];
  const strongest = new Map<string, Declaration>();
  for (const declaration of declarations) {
    const known = strongest.get(declaration.handler);
    if (strength(declaration.mark) > strength(known?.mark ?? null)) strongest.set(declaration.handler, declaration);
  }
  for (const declaration of declarations) {
    const marked = strongest.get(declaration.handler);
    if (!marked?.mark || marked.mark === declaration.mark) continue;
    context.report([...declaration.path, "handler"], `names ${describeValue(declaration.handler)}, which ${formatKeyPath(marked.path)} declares ${marked.mark} = true: declare ${marked.mark} = true here too (every declaration of one function must agree)`);
  }
  for (const page of declarationsIn(knot, "pages", path)) {
    const marked = strongest.get(page.handler);
    if (!marked?.mark) continue;
    context.report([...page.path, "handler"], `names ${describeValue(page.handler)}, which ${formatKeyPath(marked.path)} declares ${marked.mark} = true: pages are rendered on GET and must not change anything`);
  }
}

function declarationsIn(knot: TomlTable, key: string, path: KeyPath): Declaration[] {
  const value = knot[key];
  if (!Array.isArray(value)) return [];
  return value.flatMap((table: unknown, index): Declaration[] => {
    if (!isTable(table) || typeof table["handler"] !== "string") return [];
    const mark = table["destructive"] === true ? "destructive" : table["write"] === true ? "write" : null;
    return [{ handler: table["handler"], mark, path: [...path, key, index] }];
  });
}
