/** The tool exactly as an assistant's `tools/list` shows it, built by the server's own MCP code. */
import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../lib/api.ts";
import { asApiError, ErrorBox, formatJson } from "../lib/ui.tsx";
import type { Draft } from "./draft.ts";

export function SchemaPreview({ draft, kind }: { draft: Draft; kind: "tool" | "lib" }) {
  const [preview, setPreview] = useState<unknown>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const body = { name: draft.name, kind, description: draft.description, parameters: draft.parameters, readOnly: draft.readOnly, destructive: draft.destructive };
  const key = JSON.stringify(body);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      api<{ tool: unknown }>("POST", "/api/editor/preview", body).then(
        (r) => live && (setPreview(r.tool), setError(null)),
        (e) => live && setError(asApiError(e)),
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  return (
    <div class="schema-preview">
      <p class="hint small">What an assistant receives in <code>tools/list</code> for this tool (from the parameters as they are in the editor).</p>
      <ErrorBox error={error} title="The parameters are not valid yet" />
      {preview ? <pre class="json" aria-label="Tool definition as JSON">{formatJson(preview)}</pre> : null}
    </div>
  );
}
