/** Plugin metadata: the `// /// script` block of a plugin's main.js, parsed and validated (docs/plugins.md "The metadata block"). */
export { parsePluginManifest } from "./parse-manifest.ts";
export type { ParseManifestResult } from "./parse-manifest.ts";
export { parametersToJsonSchema } from "./json-schema.ts";
export { validateParameterDecls } from "./parameters.ts";
