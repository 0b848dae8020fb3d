// A leaf helper: plugin:demo/format in user tools.
export function titled(word) {
  const text = String(word).trim();
  return text.charAt(0).toUpperCase() + text.slice(1).toLowerCase();
}
