/**
 * Plugin icons and logos are shown in the web UI, so an SVG is treated as hostile markup:
 * sanitize-html keeps an allow-list of drawing elements and attributes. No script, no
 * foreignObject, no event handler, no `href` (so no `<use>`/`<image>`/`<a>` reaching out), no
 * `url(…)` other than a same-document `#fragment`, no `style` (CSS can fetch). What is left
 * can only draw.
 */
import sanitizeHtml from "sanitize-html";

const TAGS = [
  "svg", "g", "path", "circle", "ellipse", "rect", "line", "polyline", "polygon", "title", "desc", "defs",
  "linearGradient", "radialGradient", "stop", "clipPath", "mask", "symbol", "text", "tspan",
];
const ATTRIBUTES = [
  "xmlns", "viewBox", "width", "height", "preserveAspectRatio", "d", "cx", "cy", "r", "rx", "ry", "x", "y", "x1", "x2", "y1", "y2",
  "dx", "dy", "fx", "fy", "points", "fill", "fill-opacity", "fill-rule", "clip-rule", "stroke", "stroke-width", "stroke-linecap",
  "stroke-linejoin", "stroke-opacity", "stroke-dasharray", "opacity", "transform", "id", "offset", "stop-color", "stop-opacity",
  "clip-path", "mask", "gradientUnits", "gradientTransform", "font-size", "font-family", "font-weight", "text-anchor",
];
/** `url(` that is not `url(#id)`: a fetch from somewhere else. */
const EXTERNAL_URL = /url\s*\(\s*['"]?\s*(?!#)/i;

/** The sanitised SVG, or null when nothing of an `<svg>` root is left. */
export function sanitizeSvg(source: string): string | null {
  const start = source.search(/<svg[\s>]/i);
  if (start < 0) return null;
  const clean = sanitizeHtml(source.slice(start), {
    allowedTags: TAGS,
    allowedAttributes: { "*": ATTRIBUTES },
    allowedSchemes: [],
    allowProtocolRelative: false,
    disallowedTagsMode: "discard",
    parser: { xmlMode: true, lowerCaseTags: false, lowerCaseAttributeNames: false },
    transformTags: {
      "*": (tagName, attribs) => {
        const kept: Record<string, string> = {};
        for (const [name, value] of Object.entries(attribs)) if (!EXTERNAL_URL.test(value)) kept[name] = value;
        return { tagName, attribs: kept };
      },
    },
  }).trim();
  return clean.startsWith("<svg") ? clean : null;
}
