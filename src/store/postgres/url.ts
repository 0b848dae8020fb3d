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

/**
 * The URL with `-c default_transaction_isolation=read committed` added to its startup `options`
 * (kept beside any the URL already sets, such as a search_path): whatever the database or role
 * defaults to, each statement sees what committed before it. A startup option, so it holds from a
 * connection's first query (a SET sent on connect would race the pool's first query).
 */
export function withReadCommitted(url: string): string {
  const parsed = new URL(url);
  const own = parsed.searchParams.get("options");
  const setting = "-c default_transaction_isolation=read\\ committed";
  parsed.searchParams.set("options", own ? `${own} ${setting}` : setting);
  return parsed.toString();
}
