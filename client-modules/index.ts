/**
 * client-modules: the step that decides which module code may enter a user sandbox — read, strip
 * types, lint, name. Host-side and pure (no isolates here). Dependency direction:
 * src → client-modules → sandbox; nothing here imports src/.
 */
export { DIAGNOSTIC_CODES, type Diagnostic, type DiagnosticCode } from "./diagnostic.ts";
export { prepareSource, type Language, type PreparedSource } from "./prepare-source.ts";
export { listImports, listSavedImports, type ImportSite, type ListedImports } from "./list-imports.ts";
export { createTextMemo, SOURCE_MEMO, type TextMemo } from "./text-memo.ts";
export {
  KNOT_MODULES,
  userToolImportPolicy,
  clientModuleImportPolicy,
  type ImportPolicy,
  type UserToolImportContext,
} from "./import-policy.ts";
export { lintModule, type LintOptions, type LintResult } from "./lint-module.ts";
export { certainExportNames, exportedNames } from "./exported-names.ts";
export {
  buildClientModules,
  type BuiltClientModules,
  type ClientModuleProblem,
  type ClientModuleSet,
} from "./build-client-modules.ts";
