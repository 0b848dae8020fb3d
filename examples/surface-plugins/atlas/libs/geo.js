// /// script
// [tool.knot.lib]
// version = "0.3.1"
// ///
/** Plain compute for other plugins: `import { distanceKm } from "plugin:atlas/geo"`. */
export function distanceKm(x1, y1, x2, y2) {
  return Math.hypot(x2 - x1, y2 - y1);
}
