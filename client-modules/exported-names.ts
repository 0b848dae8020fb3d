/**
 * What a module exports, read from its syntax tree: the named exports (for editor completion and
 * the plugin alias) and whether it has a default export (the user-tool entry point).
 */
import { parseModule, type Node, type Pattern, type Program } from "./parse.ts";

export interface ExportShape {
  /** Named exports in source order, without `default`. `export * from` is not followed. */
  readonly names: string[];
  readonly hasDefault: boolean;
}

/**
 * The named exports of a module (not `default`); `[]` when it does not parse.
 *
 * @example
 * exportedNames("export const a = 1; export function b() {}; export default 3;") // → ["a", "b"]
 */
export function exportedNames(js: string): string[] {
  const parsed = parseModule(js);
  return parsed.ok ? exportShape(parsed.program).names : [];
}

/**
 * The named exports a module certainly has, or null when its syntax cannot say: it does not parse,
 * or it re-exports another module whole (`export * from`), whose names only its import reveals.
 */
export function certainExportNames(js: string): ReadonlySet<string> | null {
  const parsed = parseModule(js);
  if (!parsed.ok) return null;
  if (parsed.program.body.some((statement) => statement.type === "ExportAllDeclaration" && !statement.exported)) return null;
  return new Set(exportShape(parsed.program).names);
}

export function exportShape(program: Program): ExportShape {
  const names: string[] = [];
  let hasDefault = false;
  const add = (name: string) => {
    if (name === "default") hasDefault = true;
    else if (!names.includes(name)) names.push(name);
  };
  for (const statement of program.body) {
    switch (statement.type) {
      case "ExportDefaultDeclaration":
        hasDefault = true;
        break;
      case "ExportAllDeclaration":
        if (statement.exported) add(moduleExportName(statement.exported));
        break;
      case "ExportNamedDeclaration": {
        const declaration = statement.declaration;
        if (declaration?.type === "VariableDeclaration") {
          for (const declarator of declaration.declarations) bindingNames(declarator.id, add);
        } else if (declaration) {
          add(declaration.id.name);
        }
        for (const specifier of statement.specifiers) add(moduleExportName(specifier.exported));
        break;
      }
      default:
        break;
    }
  }
  return { names, hasDefault };
}

function moduleExportName(node: Node & { type: string; name?: string; value?: unknown }): string {
  return node.type === "Identifier" ? String(node.name) : String(node.value);
}

/** Every name a binding pattern introduces (`{ a, b: [c, ...d] = x }` → a, c, d). */
function bindingNames(pattern: Pattern, add: (name: string) => void): void {
  switch (pattern.type) {
    case "Identifier":
      add(pattern.name);
      break;
    case "ObjectPattern":
      for (const property of pattern.properties) {
        bindingNames(property.type === "RestElement" ? property.argument : property.value, add);
      }
      break;
    case "ArrayPattern":
      for (const element of pattern.elements) if (element) bindingNames(element, add);
      break;
    case "RestElement":
      bindingNames(pattern.argument, add);
      break;
    case "AssignmentPattern":
      bindingNames(pattern.left, add);
      break;
    default:
      break; // MemberExpression: not a binding in a declaration
  }
}
