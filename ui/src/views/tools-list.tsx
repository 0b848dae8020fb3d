/** My tools: the user's tools and libs, then those shared with them; create, rename, delete. */
import { useState } from "preact/hooks";
import { api, ApiError, get, type Me, type Tool } from "../lib/api.ts";
import { href, navigate } from "../lib/router.ts";
import { asApiError, ConfirmDialog, Empty, ErrorBox, formatTime, Loading, Modal, NameDialog, useAsync } from "../lib/ui.tsx";
import { starterCode, starterParameters } from "../editor/starter-code.ts";
import { OWNER_SEPARATOR, TOOL_NAME, TOOL_NAME_MAX } from "../../../sandbox/guest/names.ts";

/** Why the server would refuse `name` for a new tool (its rules, from the shared grammar), or null. */
function newToolNameProblem(name: string): string | null {
  if (name === "") return null; // `required` says so
  if (!TOOL_NAME.test(name) || name.length > TOOL_NAME_MAX) return `Use 1–${TOOL_NAME_MAX} letters, digits, _ or -, starting with a letter or digit.`;
  if (name.includes(OWNER_SEPARATOR)) return `A name may not contain "${OWNER_SEPARATOR}": it separates owner and name in shared tools' names.`;
  return null;
}

const canAuthor = (me: Me) => me.isAdmin || me.permissions.includes("knot.tools.author");

export function ToolsList({ me }: { me: Me }) {
  const tools = useAsync(() => get<{ tools: Tool[] }>("/api/tools").then((r) => r.tools), []);
  const [dialog, setDialog] = useState<{ kind: "new" } | { kind: "rename"; tool: Tool } | { kind: "delete"; tool: Tool } | null>(null);
  const mine = tools.data?.filter((t) => t.mine) ?? [];
  const shared = tools.data?.filter((t) => !t.mine) ?? [];

  return (
    <section class="tools-list">
      <header class="page-head">
        <h1>My tools</h1>
        {canAuthor(me) ? <button type="button" class="primary" onClick={() => setDialog({ kind: "new" })}>New tool or lib</button> : null}
      </header>
      {tools.loading && !tools.data ? <Loading what="your tools" /> : null}
      <ErrorBox error={tools.error} title="Could not load tools" />
      {tools.data ? (
        mine.length === 0 ? (
          <Empty>
            <p><strong>You have no tools yet.</strong></p>
            <p>A tool is a small JavaScript module that assistants can call through MCP, and you can run here.
              {canAuthor(me) ? " Create one to get started." : " You need the knot.tools.author permission to write one; ask an admin."}</p>
          </Empty>
        ) : <ToolTable tools={mine} onRename={(tool) => setDialog({ kind: "rename", tool })} onDelete={(tool) => setDialog({ kind: "delete", tool })} />
      ) : null}
      {tools.data ? (
        <>
          <h2>Shared with me</h2>
          {shared.length === 0 ? <Empty><p>Nothing is shared with you yet.</p></Empty> : <ToolTable tools={shared} />}
        </>
      ) : null}
      {dialog?.kind === "new" ? <NewToolDialog onClose={() => setDialog(null)} /> : null}
      {dialog?.kind === "rename" ? <RenameDialog tool={dialog.tool} onClose={() => setDialog(null)} onDone={tools.reload} /> : null}
      {dialog?.kind === "delete" ? (
        <ConfirmDialog title={`Delete ${dialog.tool.name}?`} danger confirm="Delete"
          message={<p>This deletes <strong>{dialog.tool.name}</strong> and all {dialog.tool.version} saved version(s). Assistants can no longer call it. This cannot be undone.</p>}
          onConfirm={async () => {
            await api("DELETE", `/api/tools/${encodeURIComponent(dialog.tool.id)}`);
            tools.reload();
          }}
          onClose={() => setDialog(null)} />
      ) : null}
    </section>
  );
}

function ToolTable({ tools, onRename, onDelete }: { tools: Tool[]; onRename?: (t: Tool) => void; onDelete?: (t: Tool) => void }) {
  return (
    <div class="table-wrap">
      <table class="data">
        <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Shared</th><th scope="col">Version</th><th scope="col">Updated</th>{onRename ? <th scope="col"><span class="sr-only">Actions</span></th> : null}</tr></thead>
        <tbody>
          {tools.map((tool) => (
            <tr key={tool.id} data-tool={tool.name}>
              <td><a href={href("tools", tool.id)}>{tool.name}</a>{tool.active ? null : <span class="badge muted">inactive</span>}{tool.description ? <div class="muted small">{tool.description}</div> : null}
                {tool.mine ? null : <div class="muted small">by {tool.ownerName}; {tool.kind === "lib" ? "import as" : "assistants call it"} <code>{tool.kind === "lib" ? `lib:${tool.callAs}` : tool.callAs}</code></div>}</td>
              <td><span class={`badge kind-${tool.kind}`}>{tool.kind}</span></td>
              <td>{tool.sharing === "private" ? "private" : tool.sharing === "everyone" ? "everyone" : `group ${tool.sharing.slice(1)}`}</td>
              <td>v{tool.version}</td>
              <td>{formatTime(tool.updatedAt)}</td>
              {onRename && onDelete ? (
                <td class="row-actions">
                  <button type="button" onClick={() => onRename(tool)} aria-label={`Rename ${tool.name}`}>Rename</button>
                  <button type="button" class="danger" onClick={() => onDelete(tool)} aria-label={`Delete ${tool.name}`}>Delete</button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NewToolDialog({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<"tool" | "lib" | "sink">("tool");
  const [error, setError] = useState<ApiError | null>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const { tool } = await api<{ tool: Tool }>("POST", "/api/tools", { name, kind, code: starterCode(kind), description: "", parameters: starterParameters(kind), ...(kind === "sink" ? { events: ["tool.saved"] } : {}) });
      onClose();
      navigate("tools", tool.id);
    } catch (err) {
      setError(asApiError(err));
    }
  };
  return (
    <Modal title="New tool or lib" onClose={onClose}>
      <form onSubmit={create} class="stack">
        <label for="new-name">Name</label>
        <input id="new-name" value={name} required autoFocus aria-describedby="new-name-hint"
          onInput={(e) => {
            const input = e.target as HTMLInputElement;
            setName(input.value);
            input.setCustomValidity(newToolNameProblem(input.value) ?? "");
          }} />
        <p id="new-name-hint" class="hint small">Letters, digits, _ or - (not __), starting with a letter or digit. Assistants see tools by this name.</p>
        <fieldset class="inline">
          <legend>Kind</legend>
          <label><input type="radio" name="kind" checked={kind === "tool"} onChange={() => setKind("tool")} /> Tool (callable)</label>
          <label><input type="radio" name="kind" checked={kind === "lib"} onChange={() => setKind("lib")} /> Lib (imported by tools as <code>lib:{name || "name"}</code>)</label>
          <label><input type="radio" name="kind" checked={kind === "sink"} onChange={() => setKind("sink")} /> Sink (runs as you on events)</label>
        </fieldset>
        <ErrorBox error={error} title="Could not create" />
        <div class="actions"><button type="button" onClick={onClose}>Cancel</button><button type="submit" class="primary">Create</button></div>
      </form>
    </Modal>
  );
}

function RenameDialog({ tool, onClose, onDone }: { tool: Tool; onClose: () => void; onDone: () => void }) {
  return (
    <NameDialog title={`Rename ${tool.name}`} id="rename-name" label="New name" initial={tool.name} confirm="Rename" onClose={onClose}
      hint="Renaming saves a new version. Assistants and other tools that use the old name stop finding it."
      save={async (name) => { await api("PUT", `/api/tools/${encodeURIComponent(tool.id)}`, { name, expectedVersion: tool.version }); onDone(); }} />
  );
}
