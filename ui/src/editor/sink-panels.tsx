/** A sink's two panels: the event types it subscribes to, and its deliveries from the outbox. */
import { get } from "../lib/api.ts";
import { Empty, ErrorBox, formatTime, Loading, useAsync } from "../lib/ui.tsx";
import { BUILTIN_EVENT_TYPES } from "../../../src/events/builtin-event-types.ts";

export function EventsPanel({ events, readOnly, onChange }: { events: string[]; readOnly: boolean; onChange: (events: string[]) => void }) {
  return (
    <div class="stack">
      <label for="sink-events">Subscribed event types (comma-separated)</label>
      <input id="sink-events" value={events.join(", ")} readOnly={readOnly} aria-describedby="sink-events-hint"
        onChange={(e) => onChange((e.target as HTMLInputElement).value.split(",").map((s) => s.trim()).filter((s) => s !== ""))} />
      <p id="sink-events-hint" class="hint small">
        Built in: {BUILTIN_EVENT_TYPES.map((t) => <code key={t} class="chip">{t}</code>)} and plugin events (<code>plugin.&lt;name&gt;.&lt;type&gt;</code>).
        The default export gets the event as <code>request.params</code>: <code>{"{ id, type, at, data }"}</code>, and runs as you.
      </p>
    </div>
  );
}

interface Delivery { eventId: string; type: string; status: "pending" | "delivered" | "failed" | "dead"; attempts: number; lastError: string | null; nextAttemptAt: string }

export function DeliveriesPanel({ sinkId }: { sinkId: string }) {
  const answer = useAsync(() => get<{ deliveries: Delivery[] }>(`/api/sinks/${encodeURIComponent(sinkId)}/deliveries`), [sinkId]);
  if (answer.loading && !answer.data) return <Loading what="deliveries" />;
  if (answer.error || !answer.data) return <ErrorBox error={answer.error} title="Could not load deliveries" />;
  return (
    <div class="stack">
      <button type="button" onClick={answer.reload}>Refresh</button>
      {answer.data.deliveries.length === 0 ? <Empty><p>No events delivered yet.</p></Empty> : (
        <table class="data compact deliveries">
          <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last error</th></tr></thead>
          <tbody>{answer.data.deliveries.map((d) => (
            <tr key={d.eventId} data-status={d.status}>
              <td><code>{d.type}</code><br /><span class="muted small">{d.eventId}</span></td>
              <td><span class={d.status === "delivered" ? "badge" : "badge danger"}>{d.status}</span>{d.status === "failed" ? <span class="muted small"> retry {formatTime(d.nextAttemptAt)}</span> : null}</td>
              <td>{d.attempts}</td><td>{d.lastError ?? <span class="muted">none</span>}</td>
            </tr>
          ))}</tbody>
        </table>
      )}
    </div>
  );
}
