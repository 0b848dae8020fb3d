/**
 * Completion of what a user tool can import: module specifiers inside `from "…"` / `import("…")`,
 * and a module's exported names inside `import { … } from "…"`. The list comes from the server
 * (`/api/editor/modules`): the knot:* modules, the client modules of loaded plugins and the libs
 * the user may import — the same set the linter accepts.
 */
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from "@codemirror/autocomplete";

export interface EditorModule {
  specifier: string;
  kind: "knot" | "plugin" | "lib";
  exports: { name: string; detail?: string; info?: string }[];
}

const KIND_LABEL = { knot: "knot module", plugin: "plugin client module", lib: "your lib" } as const;

export function moduleCompletions(getModules: () => readonly EditorModule[]): CompletionSource {
  return (ctx: CompletionContext): CompletionResult | null => {
    const modules = getModules();
    const line = ctx.state.doc.lineAt(ctx.pos);
    const before = line.text.slice(0, ctx.pos - line.from);
    const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(["'])([^"']*)$/.exec(before);
    if (specifier) {
      const typed = specifier[2] ?? "";
      return {
        from: ctx.pos - typed.length,
        options: modules.map((m): Completion => ({
          label: m.specifier, type: "namespace", detail: KIND_LABEL[m.kind],
          info: m.exports.length ? `exports: ${m.exports.map((e) => e.name).join(", ")}` : "no named exports",
        })),
        validFor: /^[\w:\/@.-]*$/,
      };
    }
    const head = ctx.state.doc.sliceString(Math.max(0, ctx.pos - 1000), ctx.pos);
    const braces = /\bimport\s*(?:[\w$]+\s*,\s*)?\{[^}]*$/.exec(head);
    if (braces) {
      const tail = ctx.state.doc.sliceString(ctx.pos, Math.min(ctx.state.doc.length, ctx.pos + 1000));
      const from = /^[^}]*\}\s*from\s*["']([^"']+)["']/.exec(tail);
      const target = from ? modules.find((m) => m.specifier === from[1]) : undefined;
      if (!target) return null;
      const word = ctx.matchBefore(/[\w$]*/);
      if (!word || (word.from === word.to && !ctx.explicit && !/[{,]\s*$/.test(head))) return null;
      return {
        from: word.from,
        options: target.exports.map((e): Completion => ({ label: e.name, type: "function", detail: e.detail ?? target.specifier, ...(e.info ? { info: e.info } : {}) })),
        validFor: /^[\w$]*$/,
      };
    }
    return null;
  };
}
