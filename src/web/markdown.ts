/**
 * Why: plugin pages carry markdown written by plugin code (and often echoing data users typed), and
 * the UI inserts the result as HTML. Two layers keep script out: markdown-it runs with raw HTML
 * off (any `<tag>` in the text comes out escaped) and its own link validation (no `javascript:`,
 * `vbscript:`, most `data:` URLs); then sanitize-html keeps only an allow-list of plain
 * formatting tags and http(s)/mailto links. No attribute that can run code (on*, style, src)
 * survives. The UI's Content-Security-Policy forbids inline script as a third layer.
 *
 * The only module that imports markdown-it and sanitize-html.
 */
import MarkdownIt from "markdown-it";
import sanitizeHtml from "sanitize-html";

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

const ALLOWED_TAGS = [
  "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code", "em", "strong", "s", "del",
  "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
];

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: { a: ["href", "title"], ol: ["start"], th: ["align"], td: ["align"] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesAppliedToAttributes: ["href"],
  allowProtocolRelative: false,
  disallowedTagsMode: "escape",
  transformTags: {
    a: sanitizeHtml.simpleTransform("a", { rel: "noopener noreferrer nofollow", target: "_blank" }),
  },
};
// `rel` and `target` are added by the transform, so they must pass the filter that follows it.
(SANITIZE.allowedAttributes as Record<string, string[]>).a!.push("rel", "target");

/**
 * Markdown → sanitised HTML, safe to insert into the UI.
 * @example renderMarkdown("**hi** <script>x</script>") // → "<p><strong>hi</strong> &lt;script&gt;x&lt;/script&gt;</p>\n"
 */
export function renderMarkdown(text: string): string {
  return sanitizeHtml(markdown.render(text), SANITIZE);
}
