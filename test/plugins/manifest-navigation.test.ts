import { test } from "node:test";
import assert from "node:assert/strict";
import { KnotError } from "../../src/errors.ts";
import { HEAD, parseErrors, parseOk, plugin } from "./manifest-helpers.ts";

// The navigation keys of knot's plugin surface: menus, icons, logos, field handlers, page
// navigation and dependencies. HEAD is file lines 2-4 (permissions = ["export"]).

const NAV = plugin([
  ...HEAD,
  'icons = ["icons/chart.svg", "gear.svg"]', //           5
  'logo_light = "logo-light.svg"', //                     6
  'logo_dark = "logo-dark.svg"', //                       7
  'dependencies = ["cms>=1.2", "search"]', //             8
  "[[tool.knot.handlers]]", //                            9
  'handler = "lookup"', //                                10
  "[[tool.knot.menus]]", //                               11
  'label = "Charts"', //                                  12
  'url = "/pages/metrics/charts"', //                     13
  'icon = "icons/chart.svg"', //                          14
  "[[tool.knot.menus]]", //                               15
  'label = "Docs"', //                                    16
  'url = "https://example.org/metrics"', //               17
  'permission = "export"', //                             18
  "[[tool.knot.field_handlers]]", //                      19
  'label = "Look up a host"', //                          20
  'handler = "lookup"', //                                21
  'permission = "export"', //                             22
  "[[tool.knot.pages]]", //                               23
  'path = "/charts"', //                                  24
  'handler = "charts"', //                                25
  'label = "Charts of the fleet"', //                     26
  "default = true", //                                    27
  'menu_label = "Charts"', //                             28
  'icon = "gear.svg"', //                                 29
]);

test("every navigation key is read and qualified", () => {
  const manifest = parseOk(NAV);
  assert.deepEqual(manifest.icons, ["icons/chart.svg", "gear.svg"]);
  assert.equal(manifest.logoLight, "logo-light.svg");
  assert.equal(manifest.logoDark, "logo-dark.svg");
  assert.deepEqual(manifest.dependencies, [{ plugin: "cms", range: ">=1.2", line: 8 }, { plugin: "search", range: "*", line: 8 }]);
  assert.deepEqual(manifest.menus, [
    { label: "Charts", url: "/pages/metrics/charts", permission: null, icon: "icons/chart.svg", line: 11 },
    { label: "Docs", url: "https://example.org/metrics", permission: "plugin.metrics.export", icon: null, line: 15 },
  ]);
  assert.deepEqual(manifest.fieldHandlers, [{ label: "Look up a host", handler: "lookup", permission: "plugin.metrics.export", line: 19 }]);
  assert.deepEqual(manifest.pages, [
    { path: "/charts", handler: "charts", label: "Charts of the fleet", permission: null, line: 23, default: true, menuLabel: "Charts", icon: "gear.svg" },
  ]);
});

const MENU = ["[[tool.knot.menus]]", 'label = "M"']; // file lines 5-6 after HEAD
const PAGE = ["[[tool.knot.pages]]", 'path = "/p"', 'handler = "a"', 'label = "P"']; // lines 5-8

const MALFORMED: ReadonlyArray<{ readonly name: string; readonly toml: readonly string[]; readonly key: string; readonly line: number }> = [
  { name: "menu without url", toml: [...HEAD, ...MENU], key: "tool.knot.menus[0].url", line: 5 },
  { name: "menu without label", toml: [...HEAD, "[[tool.knot.menus]]", 'url = "/x"'], key: "tool.knot.menus[0].label", line: 5 },
  { name: "menu url relative", toml: [...HEAD, ...MENU, 'url = "pages/x"'], key: "tool.knot.menus[0].url", line: 7 },
  { name: "menu url protocol-relative", toml: [...HEAD, ...MENU, 'url = "//evil.example/x"'], key: "tool.knot.menus[0].url", line: 7 },
  { name: "menu url javascript:", toml: [...HEAD, ...MENU, 'url = "javascript:alert(1)"'], key: "tool.knot.menus[0].url", line: 7 },
  { name: "menu url with a backslash", toml: [...HEAD, ...MENU, 'url = "/\\\\evil.example"'], key: "tool.knot.menus[0].url", line: 7 },
  { name: "menu url repeated", toml: [...HEAD, ...MENU, 'url = "/x"', ...MENU, 'url = "/x"'], key: "tool.knot.menus[1].url", line: 10 },
  { name: "menu permission not declared", toml: [...HEAD, ...MENU, 'url = "/x"', 'permission = "admin"'], key: "tool.knot.menus[0].permission", line: 8 },
  { name: "menu icon not in icons", toml: [...HEAD, ...MENU, 'url = "/x"', 'icon = "a.svg"'], key: "tool.knot.menus[0].icon", line: 8 },
  { name: "unknown key in a menu", toml: [...HEAD, ...MENU, 'url = "/x"', "order = 1"], key: "tool.knot.menus[0].order", line: 8 },
  { name: "icon outside the folder", toml: [...HEAD, 'icons = ["../etc/a.svg"]'], key: "tool.knot.icons[0]", line: 5 },
  { name: "icon absolute", toml: [...HEAD, 'icons = ["/tmp/a.svg"]'], key: "tool.knot.icons[0]", line: 5 },
  { name: "icon not svg", toml: [...HEAD, 'icons = ["a.png"]'], key: "tool.knot.icons[0]", line: 5 },
  { name: "icon repeated", toml: [...HEAD, 'icons = ["a.svg", "a.svg"]'], key: "tool.knot.icons[1]", line: 5 },
  { name: "logo not svg", toml: [...HEAD, 'logo_light = "logo.html"'], key: "tool.knot.logo_light", line: 5 },
  { name: "logo not a string", toml: [...HEAD, "logo_dark = true"], key: "tool.knot.logo_dark", line: 5 },
  { name: "field handler naming no handler", toml: [...HEAD, "[[tool.knot.field_handlers]]", 'label = "L"', 'handler = "nope"'], key: "tool.knot.field_handlers[0].handler", line: 7 },
  { name: "field handler without label", toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', "[[tool.knot.field_handlers]]", 'handler = "a"'], key: "tool.knot.field_handlers[0].label", line: 7 },
  { name: "unknown key in a field handler", toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', "[[tool.knot.field_handlers]]", 'label = "L"', 'handler = "a"', "field = 1"], key: "tool.knot.field_handlers[0].field", line: 10 },
  { name: "page default not a boolean", toml: [...HEAD, ...PAGE, 'default = "yes"'], key: "tool.knot.pages[0].default", line: 9 },
  { name: "two default pages", toml: [...HEAD, ...PAGE, "default = true", "[[tool.knot.pages]]", 'path = "/q"', 'handler = "a"', 'label = "Q"', "default = true"], key: "tool.knot.pages[1].default", line: 14 },
  { name: "page menu_label empty", toml: [...HEAD, ...PAGE, 'menu_label = " "'], key: "tool.knot.pages[0].menu_label", line: 9 },
  { name: "page icon not declared", toml: [...HEAD, ...PAGE, 'icon = "x.svg"'], key: "tool.knot.pages[0].icon", line: 9 },
  { name: "typo in a page", toml: [...HEAD, ...PAGE, 'menulabel = "x"'], key: "tool.knot.pages[0].menulabel", line: 9 },
  { name: "dependencies not an array", toml: [...HEAD, 'dependencies = "cms"'], key: "tool.knot.dependencies", line: 5 },
  { name: "dependency with a bad range", toml: [...HEAD, 'dependencies = ["cms>=one"]'], key: "tool.knot.dependencies[0]", line: 5 },
  { name: "dependency on itself", toml: [...HEAD, 'dependencies = ["metrics"]'], key: "tool.knot.dependencies[0]", line: 5 },
  { name: "dependency repeated", toml: [...HEAD, 'dependencies = ["cms", "cms>=2"]'], key: "tool.knot.dependencies[1]", line: 5 },
  { name: "dependency name with capitals", toml: [...HEAD, 'dependencies = ["CMS"]'], key: "tool.knot.dependencies[0]", line: 5 },
];

test(`each of ${MALFORMED.length} malformed navigation keys is refused with one error naming plugin, key and line`, () => {
  for (const row of MALFORMED) {
    const errors = parseErrors(plugin(row.toml));
    assert.equal(errors.length, 1, `${row.name}: ${errors.map((error) => error.message).join(" | ")}`);
    const [error] = errors;
    assert.ok(error instanceof KnotError, row.name);
    assert.equal(error.code, "METADATA_INVALID", row.name);
    assert.ok(error.message.startsWith(`plugin "metrics": ${row.key} `), `${row.name}: ${error.message}`);
    assert.ok(error.message.endsWith(`(main.js line ${row.line})`), `${row.name}: ${error.message}`);
  }
});
