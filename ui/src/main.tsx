import { render } from "preact";
import { App } from "./app.tsx";
import { pluginFetch } from "./lib/api.ts";
import "./styles.css";

// The browser helper for calling plugin handlers with the session, for the console and tests.
(window as unknown as { knot: unknown }).knot = Object.freeze({ pluginFetch });

render(<App />, document.getElementById("app")!);
