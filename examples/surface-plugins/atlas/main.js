// /// script
// requires-runtime = ">=0.1"
//
// [tool.knot]
// version = "1.2.0"
// description = "Every key of knot's plugin surface (issue 15): navigation, interactive pages, nested parameters, areas."
// permissions = ["view", "manage", "purge"]
// export = ["client.js"]
// icons = ["icons/globe.svg", "icons/pin.svg"]
// logo_light = "logo-light.svg"
// logo_dark = "logo-dark.svg"
// dependencies = ["demo>=1.0"]
//
// [[tool.knot.menus]]
// label = "Atlas"
// url = "/#/pages/atlas/places"
// icon = "icons/globe.svg"
//
// [[tool.knot.menus]]
// label = "Atlas handbook"
// url = "https://atlas.example/handbook"
// permission = "manage"
//
// [[tool.knot.field_handlers]]
// label = "Suggest a place"
// handler = "suggest_place"
// permission = "view"
//
// [[tool.knot.handlers]]
// handler = "suggest_place"
// permission = "view"
// area = "content"
//
// [[tool.knot.handlers]]
// handler = "regions_data"
// permission = "view"
// area = "content"
//
// [[tool.knot.handlers]]
// handler = "add_place"
// permission = "manage"
// write = true
// area = "content"
//
// [[tool.knot.handlers]]
// handler = "purge_places"
// permission = "purge"
// destructive = true
// area = "settings"
//
// [[tool.knot.handlers]]
// handler = "open_trip"
// permission = "view"
// area = "content"
//
// [[tool.knot.handlers]]
// handler = "trip_add"
// permission = "view"
// area = "content"
//
// [[tool.knot.pages]]
// path = "/places"
// handler = "places_page"
// label = "Atlas places"
// permission = "view"
// default = true
// menu_label = "Places"
// icon = "icons/pin.svg"
//
// [[tool.knot.mcp_tools]]
// name = "atlas_add_place"
// description = "Add a place to the atlas, with who to contact about it."
// handler = "add_place"
// permission = "manage"
// write = true
//
// [[tool.knot.mcp_tools.parameters]]
// name = "name"
// required = true
// description = "The place's name."
//
// [[tool.knot.mcp_tools.parameters]]
// name = "region"
// enum = ["north", "south"]
// default = "north"
//
// [[tool.knot.mcp_tools.parameters]]
// name = "contact"
// type = "object"
// description = "Who to call about the place."
//
// [[tool.knot.mcp_tools.parameters.properties]]
// name = "phone"
// required = true
// personal = true
//
// [[tool.knot.mcp_tools.parameters.properties]]
// name = "kind"
// enum = ["office", "mobile"]
// default = "office"
//
// [[tool.knot.mcp_tools.parameters]]
// name = "tags"
// type = "list"
// items = "string"
//
// [[tool.knot.mcp_tools.parameters]]
// name = "keys"
// type = "list"
// items = { type = "object", properties = [{ name = "token", secret = true }, { name = "uses", type = "int", default = 1 }] }
//
// [[tool.knot.mcp_tools]]
// name = "atlas_whoami"
// description = "Which assistant is asking (request.assistant)."
// handler = "whoami"
// read_only = true
// area = "settings"
// ///
import { user } from "knot:identity";
import { deny } from "knot:plugin";
import { distanceKm } from "plugin:atlas/geo";

const places = [{ name: "Lighthouse", region: "north", tags: ["coast"] }];

export function places_page() {
  return {
    title: "Atlas places",
    blocks: [
      { type: "table", columns: ["Place", "Region", "Tags"], rows: places.map((p) => [p.name, p.region, p.tags.join(", ")]) },
      ...(user().hasPermission(["plugin.atlas.view", "plugin.atlas.manage"]) ? [{
        type: "form", action: "add_place", submit: "Add place",
        fields: [
          { name: "name", label: "Name", type: "text", required: true },
          { name: "region", label: "Region", type: "select", data: "regions_data" },
          { name: "visitors", label: "Visitors a day", type: "number", value: 10 },
          { name: "coastal", label: "On the coast", type: "checkbox" },
        ],
      }] : []),
      { type: "markdown", text: `Lighthouse to harbour: **${distanceKm(0, 0, 3, 4)} km**.` },
    ],
  };
}

export function regions_data() {
  return [{ value: "north", label: "North" }, { value: "south", label: "South" }];
}

export function suggest_place(request) {
  return { value: `${request.params.value || "Place"} Bay` };
}

/** Serves the page form (strings) and the MCP tool (typed, checked against the nested schema). */
export function add_place(request) {
  const p = request.params;
  const place = { name: String(p.name), region: String(p.region ?? "north"), tags: Array.isArray(p.tags) ? p.tags : p.coastal === "true" ? ["coast"] : [] };
  places.push(place);
  if (request.method === "CALL") return { added: place, contactKind: p.contact?.kind ?? null, summary: `added ${place.name}` };
  return { toast: `Added ${place.name}`, blocks: places_page().blocks };
}

export function purge_places() {
  places.length = 0;
  return { redirect: "/#/pages/atlas/places" };
}

export function whoami(request) {
  return { assistant: request.assistant, user: user().name };
}

// ---- the opaque-handle pattern behind client.js's Trip class (docs/plugins.md, "Client modules")
const trips = new Map();
const TRIP_LIMIT = 1000;

export function open_trip() {
  if (trips.size >= TRIP_LIMIT) trips.delete(trips.keys().next().value);
  const handle = crypto.randomUUID();
  trips.set(handle, { owner: user().id, stops: [], opened: Date.now() });
  return { handle };
}

export function trip_add(request) {
  const trip = trips.get(String(request.params.handle));
  // A handle is a name, not a permission: it only works for the user who opened it.
  if (!trip || trip.owner !== user().id) deny("unknown trip");
  trip.stops.push(String(request.params.stop));
  return { stops: [...trip.stops] };
}
