/** The shell: who is signed in, the navigation (with plugin pages the user passes), and the views. */
import { useEffect, useState } from "preact/hooks";
import { forgetAllDrafts } from "./editor/draft-store.ts";
import { api, get, SIGNED_OUT_EVENT, type Me } from "./lib/api.ts";
import { href, mayLeave, navigate, useRoute } from "./lib/router.ts";
import { Loading } from "./lib/ui.tsx";
import { AuditView } from "./views/audit.tsx";
import { ConsentView } from "./views/consent.tsx";
import { PluginPageView } from "./views/plugin-page.tsx";
import { PluginNav } from "./views/plugin-nav.tsx";
import { PluginsView } from "./views/plugins.tsx";
import { SignIn } from "./views/sign-in.tsx";
import { TokensView } from "./views/tokens.tsx";
import { ToolEditor } from "./views/tool-editor.tsx";
import { ToolsList } from "./views/tools-list.tsx";
import { UsersView } from "./views/users.tsx";

interface PageLink {
  plugin: string;
  path: string;
  label: string;
  menuLabel?: string;
  icon?: string | null;
}

export function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [pages, setPages] = useState<PageLink[]>([]);
  const route = useRoute();

  useEffect(() => {
    get<Me>("/api/me").then(setMe, () => setMe(null));
    const onSignedOut = () => setMe(null);
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
  }, []);
  useEffect(() => {
    if (me) get<{ pages: PageLink[] }>("/api/pages").then((r) => setPages(r.pages), () => setPages([]));
  }, [me?.id]);

  if (me === undefined) return <Loading what="your session" />;
  if (me === null) return <SignIn onSignedIn={(user) => setMe(user)} />;
  // An assistant's OAuth authorization lands here (served at its own path): consent, no navigation.
  if (/^\/oauth\/interaction\/[^/]+$/.test(window.location.pathname)) return <ConsentView path={window.location.pathname} me={me} />;

  const signOut = async () => {
    if (!mayLeave()) return; // unsaved work: the editor asks first
    forgetAllDrafts();
    await api("DELETE", "/api/session").catch(() => {});
    setMe(null);
    navigate();
  };
  const section = route[0] ?? "tools";
  const link = (target: string, label: string, extra?: string) => (
    <a href={href(target)} class={section === target ? "active" : undefined} aria-current={section === target ? "page" : undefined} data-nav={extra ?? target}>{label}</a>
  );

  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById("main")?.focus(); }}>Skip to content</a>
      <header class="topbar">
        <a class="brand" href={href("tools")}>knot-tools</a>
        <nav aria-label="Main">
          {link("tools", "My tools")}
          {link("tokens", "Tokens")}
          {me.isAdmin ? link("plugins", "Plugins") : null}
          {me.isAdmin ? link("users", "Users & grants") : null}
          {me.isAdmin ? link("audit", "Audit") : null}
          {pages.length > 0 ? (
            <span class="nav-pages" role="group" aria-label="Plugin pages">
              {pages.map((p) => {
                const active = section === "pages" && route[1] === p.plugin && `/${route[2] ?? ""}` === p.path;
                return <a key={`${p.plugin}${p.path}`} href={href("pages", p.plugin, p.path.slice(1))} class={active ? "active page-link" : "page-link"} aria-current={active ? "page" : undefined}>{p.icon ? <img class="nav-icon" src={p.icon} alt="" height={14} /> : null}{p.menuLabel ?? p.label}</a>;
              })}
            </span>
          ) : null}
          <PluginNav userId={me.id} />
        </nav>
        <div class="who">
          <span class="user-name" title={me.groups.length ? `groups: ${me.groups.join(", ")}` : "no groups"}>{me.name}{me.isAdmin ? " (admin)" : ""}</span>
          <button type="button" onClick={signOut}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <View route={route} me={me} />
      </main>
    </div>
  );
}

function View({ route, me }: { route: string[]; me: Me }) {
  const [section, ...rest] = route;
  switch (section ?? "tools") {
    case "tools":
      return rest[0] ? <ToolEditor key={rest[0]} id={rest[0]} me={me} /> : <ToolsList me={me} />;
    case "tokens":
      return <TokensView me={me} />;
    case "plugins":
      return me.isAdmin ? <PluginsView /> : <NotAllowed />;
    case "users":
      return me.isAdmin ? <UsersView me={me} /> : <NotAllowed />;
    case "audit":
      return me.isAdmin ? <AuditView /> : <NotAllowed />;
    case "pages":
      return <PluginPageView key={rest.join("/")} plugin={rest[0] ?? ""} path={`/${rest.slice(1).join("/")}`} />;
    default:
      return <section><h1>Not found</h1><p>There is no page here. <a href={href("tools")}>Back to your tools</a>.</p></section>;
  }
}

function NotAllowed() {
  return <section><h1>Admins only</h1><p>This page is for administrators.</p></section>;
}
