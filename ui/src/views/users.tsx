/** Users and grants (admins): users, admin flag, group memberships, and grants grouped per plugin. */
import { useState } from "preact/hooks";
import { api, ApiError, get, type Me } from "../lib/api.ts";
import { asApiError, ErrorBox, Loading, Modal, useAsync } from "../lib/ui.tsx";

interface UserRow {
  id: string;
  name: string;
  isAdmin: boolean;
  createdAt: string;
  groups: string[];
  grants: string[];
}
interface GrantsAnswer {
  grants: { subject: string; permission: string }[];
  permissions: { plugin: string | null; ids: string[] }[];
}

export function UsersView({ me }: { me: Me }) {
  const data = useAsync(() => Promise.all([get<{ users: UserRow[] }>("/api/users"), get<GrantsAnswer>("/api/grants")]), []);
  const [error, setError] = useState<ApiError | null>(null);
  const [tokenFor, setTokenFor] = useState<UserRow | null>(null);
  if (data.loading && !data.data) return <Loading what="users and grants" />;
  if (data.error || !data.data) return <section><h1>Users & grants</h1><ErrorBox error={data.error} title="Could not load users" /></section>;
  const [{ users }, grants] = data.data;
  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      data.reload();
    } catch (e) {
      setError(asApiError(e));
    }
  };
  const groups = [...new Set(users.flatMap((u) => u.groups))].sort();
  const subjectLabel = (subject: string) => subject.startsWith("user:") ? (users.find((u) => u.id === subject.slice(5))?.name ?? subject) : `@${subject.slice(6)}`;

  return (
    <section class="users">
      <header class="page-head"><h1>Users & grants</h1></header>
      <ErrorBox error={error} />
      <h2>Users</h2>
      <NewUserForm onCreate={(name, isAdmin) => act(() => api("POST", "/api/users", { name, isAdmin }))} />
      <div class="table-wrap">
        <table class="data">
          <thead><tr><th scope="col">Name</th><th scope="col">Admin</th><th scope="col">Groups</th><th scope="col">Direct grants</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id} data-user={u.name}>
                <td>{u.name}{u.id === me.id ? <span class="badge">you</span> : null}</td>
                <td><input type="checkbox" aria-label={`${u.name} is an admin`} checked={u.isAdmin} disabled={u.id === me.id}
                  onChange={(e) => act(() => api("PATCH", `/api/users/${encodeURIComponent(u.id)}`, { isAdmin: (e.target as HTMLInputElement).checked }))} /></td>
                <td><GroupsEditor user={u} onSave={(list) => act(() => api("PUT", `/api/users/${encodeURIComponent(u.id)}/groups`, { groups: list }))} /></td>
                <td>{u.grants.length ? u.grants.map((g) => <code key={g} class="chip">{g}</code>) : <span class="muted">none</span>}</td>
                <td><button type="button" onClick={() => setTokenFor(u)}>Create token…</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Grants by plugin</h2>
      <p class="hint">A grant gives a user or a whole group a permission. Plugin permissions gate handlers, MCP tools and pages.</p>
      {grants.permissions.map((group) => (
        <section key={group.plugin ?? "builtin"} class="card grant-group" data-plugin={group.plugin ?? "builtin"}>
          <h3>{group.plugin ? <>Plugin <code>{group.plugin}</code></> : "Built-in"}</h3>
          {group.ids.length === 0 ? <p class="muted small">This plugin declares no permissions.</p> : null}
          {group.ids.map((id) => {
            const holders = grants.grants.filter((g) => g.permission === id);
            return (
              <div class="grant-row" key={id}>
                <code class="permission">{id}</code>
                <span class="holders">
                  {holders.length === 0 ? <span class="muted small">nobody (admins pass every check)</span> : holders.map((h) => (
                    <span class="chip holder" key={h.subject}>{subjectLabel(h.subject)}
                      <button type="button" class="icon" aria-label={`Revoke ${id} from ${subjectLabel(h.subject)}`}
                        onClick={() => act(() => api("DELETE", `/api/grants?subject=${encodeURIComponent(h.subject)}&permission=${encodeURIComponent(id)}`))}>×</button>
                    </span>
                  ))}
                </span>
                <GrantAdder permission={id} users={users} groups={groups} onGrant={(subject) => act(() => api("POST", "/api/grants", { subject, permission: id }))} />
              </div>
            );
          })}
        </section>
      ))}
      {tokenFor ? <UserTokenDialog user={tokenFor} onClose={() => setTokenFor(null)} /> : null}
    </section>
  );
}

function NewUserForm({ onCreate }: { onCreate(name: string, isAdmin: boolean): Promise<void> }) {
  const [name, setName] = useState("");
  const [isAdmin, setIsAdmin] = useState(false);
  return (
    <form class="inline-form" onSubmit={async (e) => { e.preventDefault(); await onCreate(name, isAdmin); setName(""); setIsAdmin(false); }}>
      <label for="new-user-name">New user</label>
      <input id="new-user-name" value={name} required placeholder="name" onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <label class="inline"><input type="checkbox" checked={isAdmin} onChange={(e) => setIsAdmin((e.target as HTMLInputElement).checked)} /> admin</label>
      <button type="submit">Add user</button>
    </form>
  );
}

function GroupsEditor({ user, onSave }: { user: UserRow; onSave(groups: string[]): Promise<void> }) {
  const [text, setText] = useState(user.groups.join(", "));
  const changed = text.split(",").map((s) => s.trim()).filter(Boolean).join(",") !== user.groups.join(",");
  return (
    <form class="inline-form tight" onSubmit={(e) => { e.preventDefault(); void onSave(text.split(",").map((s) => s.trim()).filter(Boolean)); }}>
      <input aria-label={`Groups of ${user.name} (comma-separated)`} value={text} placeholder="no groups" onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      {changed ? <button type="submit">Save</button> : null}
    </form>
  );
}

function GrantAdder({ permission, users, groups, onGrant }: { permission: string; users: UserRow[]; groups: string[]; onGrant(subject: string): Promise<void> }) {
  const [subject, setSubject] = useState("");
  return (
    <form class="inline-form tight" onSubmit={(e) => { e.preventDefault(); if (subject) void onGrant(subject).then(() => setSubject("")); }}>
      <select aria-label={`Grant ${permission} to`} value={subject} onChange={(e) => setSubject((e.target as HTMLSelectElement).value)}>
        <option value="">Grant to…</option>
        <optgroup label="Users">{users.map((u) => <option key={u.id} value={`user:${u.id}`}>{u.name}</option>)}</optgroup>
        {groups.length ? <optgroup label="Groups">{groups.map((g) => <option key={g} value={`group:${g}`}>@{g}</option>)}</optgroup> : null}
      </select>
      <button type="submit" disabled={!subject}>Grant</button>
    </form>
  );
}

function UserTokenDialog({ user, onClose }: { user: UserRow; onClose: () => void }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const create = async () => {
    try {
      setSecret((await api<{ secret: string }>("POST", "/api/tokens", { userId: user.id, name: "sign-in (created by admin)", expiresInDays: 7 })).secret);
    } catch (e) {
      setError(asApiError(e));
    }
  };
  return (
    <Modal title={`A token for ${user.name}`} onClose={onClose}>
      {secret ? (
        <>
          <p>Give this to {user.name} over a safe channel; it is shown only once and expires in 7 days.</p>
          <input class="secret" readOnly value={secret} aria-label="Token secret" onFocus={(e) => (e.target as HTMLInputElement).select()} />
        </>
      ) : <p>Creates a 7-day token {user.name} can sign in with (and then make their own tokens).</p>}
      <ErrorBox error={error} />
      <div class="actions">{secret ? <button type="button" onClick={onClose}>Done</button> : <><button type="button" onClick={onClose}>Cancel</button><button type="button" class="primary" onClick={create}>Create</button></>}</div>
    </Modal>
  );
}
