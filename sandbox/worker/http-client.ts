/**
 * The one place undici enters the project: the sandbox worker's HTTP client for the loopback.
 * No redirects are followed, no proxy is read from the environment, and a response body is read
 * only up to a byte limit. undici is imported statically: loading it costs a few hundred ms of
 * main-thread time, which belongs before the worker reports ready — loaded lazily, it landed inside
 * the first calling run's wall-clock budget and stalled the worker's other runs.
 */
import { Agent, request } from "undici";

const agent = new Agent({ keepAliveTimeout: 4_000, connections: 32 });

export interface HttpRequest {
  readonly url: string;
  readonly method: "GET" | "POST";
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
}

export interface HttpResponse {
  readonly status: number;
  readonly contentType: string;
  /** undefined when the body was larger than maxBodyBytes */
  readonly body: string | undefined;
}

export async function sendHttp(input: HttpRequest): Promise<HttpResponse> {
  const response = await request(input.url, {
    dispatcher: agent,
    method: input.method,
    headers: input.headers,
    body: input.body ?? null,
    signal: input.signal,
    headersTimeout: input.timeoutMs,
    bodyTimeout: input.timeoutMs,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > input.maxBodyBytes) {
      response.body.destroy();
      return { status: response.statusCode, contentType: "", body: undefined };
    }
    chunks.push(chunk);
  }
  const type = response.headers["content-type"];
  return {
    status: response.statusCode,
    contentType: typeof type === "string" ? type : "",
    body: Buffer.concat(chunks).toString("utf8"),
  };
}

export function closeHttp(): Promise<void> {
  return agent.close();
}
