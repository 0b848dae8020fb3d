/**
 * PostgreSQL connection URLs: how a database setting is recognised as one, and how it is shown.
 * Kept apart from pg-driver.ts so that config code can ask without loading `pg`.
 */

/** Whether `value` is a PostgreSQL connection URL rather than a SQLite file path. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(value);
}

/** The URL with its password replaced: safe for logs and error messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://(unparsable URL)";
  }
}
