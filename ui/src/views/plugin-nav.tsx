/**
 * Plugin menus and logos in the top bar (`GET /api/plugins/navigation` lists only what the user
 * passes). Icons and logos are `<img>` of sanitised SVG from the server, so they cannot script;
 * external menu links open in a new tab without an opener.
 */
import { useEffect, useState } from "preact/hooks";
import { get } from "../lib/api.ts";

interface NavPlugin {
  name: string;
  logoLight: string | null;
  logoDark: string | null;
  menus: Array<{ label: string; url: string; icon: string | null }>;
}

export function PluginNav({ userId }: { userId: string }) {
  const [plugins, setPlugins] = useState<NavPlugin[]>([]);
  useEffect(() => {
    get<{ plugins: NavPlugin[] }>("/api/plugins/navigation").then((r) => setPlugins(r.plugins), () => setPlugins([]));
  }, [userId]);
  const shown = plugins.filter((p) => p.menus.length > 0);
  if (shown.length === 0) return null;
  return (
    <span class="nav-pages plugin-menus" role="group" aria-label="Plugin menus">
      {shown.map((p) => {
        // The top bar is dark: the logo drawn for dark backgrounds, else the light one.
        const logo = p.logoDark ?? p.logoLight;
        return (
          <span key={p.name} class="plugin-menu" data-plugin={p.name}>
            {logo ? <img class="plugin-logo" src={logo} alt={p.name} height={18} /> : null}
            {p.menus.map((m) => {
              const external = !m.url.startsWith("/");
              return (
                <a key={m.url} href={m.url} class="page-link" {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}>
                  {m.icon ? <img class="nav-icon" src={m.icon} alt="" height={14} /> : null}{m.label}
                </a>
              );
            })}
          </span>
        );
      })}
    </span>
  );
}
