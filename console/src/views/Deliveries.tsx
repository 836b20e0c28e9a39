// Producers' recent events (docs/producers.md#sending-notifications-from-a-service) and what became of the Web Push
// deliveries each queued (#durable-push-delivery), newest first, filtered by what the address says (a producer;
// a user by email or id). Each user is shown by email and name; an event without a push says why (the reason
// kept when it came). While a shown delivery is still queued the list refreshes itself every 5 s.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useLayoutEffect, useRef, useState } from "react";
import { useLocation, useSearch } from "wouter";
import { type RouterInputs, type RouterOutputs, trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { TableHead } from "../components/TableHead.js";
import { Time } from "../components/Time.js";
import { plural } from "../format.js";
import { useAddressDraft } from "../useAddressDraft.js";
import { EventFunnel, ProducerFunnels } from "./PushFunnel.js";

type ProducerEvent = RouterOutputs["deliveries"]["recent"]["events"][number];
type Delivery = ProducerEvent["deliveries"][number];
type DeliveryStatus = Delivery["status"];
type NoPush = NonNullable<ProducerEvent["noPush"]>;
/** `user` is what the operator typed: an email (it has an @) or a user id. */
type Filters = { producer: string; user: string };

const LIMIT = 50;
const REFRESH_MS = 5_000;

/** Each status as a word, a colour (the word alone carries the meaning) and what it means. */
const statuses: Record<DeliveryStatus, { label: string; badge: string; meaning: string }> = {
  queued: { label: "Queued", badge: "badge-pending", meaning: "waiting for its next attempt" },
  sent: { label: "Sent", badge: "badge-active", meaning: "the push service accepted it" },
  failed: { label: "Failed", badge: "badge-fail", meaning: "given up: no further attempt" },
  gone: { label: "Gone", badge: "badge-off", meaning: "the subscription expired; it was deactivated" },
  superseded: { label: "Superseded", badge: "badge-off", meaning: "a newer push of the same topic came first: never sent" },
};

/** Why an event queued no push, in words (docs/producers.md#sending-notifications-from-a-service). */
const noPushReasons: Record<NoPush, string> = {
  push_off: "No push: this user turned push off for this category",
  push_not_configured: "No push: push is not configured on this service (no VAPID keys)",
  no_subscription: "No push: this user had no active push subscription",
};
const NO_PUSH_UNKNOWN = "No push (received before the reason was kept: push off, or no subscription)";

const filtersFromSearch = (search: string): Filters => {
  const params = new URLSearchParams(search);
  // userId: the address this view used before it took emails.
  return { producer: params.get("producer") ?? "", user: params.get("user") ?? params.get("userId") ?? "" };
};

const pathOf = (filters: Filters) => {
  const params = new URLSearchParams();
  if (filters.producer.trim()) params.set("producer", filters.producer.trim());
  if (filters.user.trim()) params.set("user", filters.user.trim());
  const query = params.toString();
  return query ? `/deliveries?${query}` : "/deliveries";
};

export function Deliveries() {
  const search = useSearch();
  const applied = filtersFromSearch(search);
  return (
    <>
      <h1>Deliveries</h1>
      <p className="hint">
        Events other services sent through the producer API, newest first, and the Web Push deliveries each one queued: sent, retried while
        queued, or given up.
      </p>
      <FilterForm search={search} initial={applied} />
      <Events filters={applied} />
    </>
  );
}

function FilterForm({ initial, search }: { initial: Filters; search: string }) {
  const [, navigate] = useLocation();
  const [draft, setDraft] = useAddressDraft(initial, search);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(pathOf(draft));
  };
  return (
    <form onSubmit={submit} className="card filters" aria-label="Filters">
      <label>
        Producer
        <input value={draft.producer} autoComplete="off" onChange={(e) => setDraft({ ...draft, producer: e.target.value })} />
      </label>
      <label>
        User (email or id)
        <input value={draft.user} autoComplete="off" onChange={(e) => setDraft({ ...draft, user: e.target.value })} />
      </label>
      <div className="row filter-actions">
        <button type="submit" className="primary">
          Apply filters
        </button>
        <button type="button" onClick={() => navigate("/deliveries")}>
          Clear
        </button>
      </div>
    </form>
  );
}

const anyQueued = (events: ProducerEvent[] | undefined) => events?.some((e) => e.deliveries.some((d) => d.status === "queued")) ?? false;

function Events({ filters }: { filters: Filters }) {
  const producer = filters.producer.trim() || undefined;
  const user = filters.user.trim() || undefined;
  const byEmail = user?.includes("@") ?? false;
  const input: RouterInputs["deliveries"]["recent"] = {
    producer,
    ...(user && (byEmail ? { userEmail: user } : { userId: user })),
    limit: LIMIT,
  };
  const events = useQuery(
    trpc.deliveries.recent.queryOptions(input, {
      refetchInterval: (query) => (anyQueued(query.state.data?.events) ? REFRESH_MS : false),
    }),
  );
  const rows = events.data?.events ?? [];
  return (
    <section aria-labelledby="events-title">
      <div className="row events-head">
        <h2 id="events-title">Events</h2>
        {/* Never disabled: the automatic refresh would make it blink every 5 s. */}
        <button type="button" onClick={() => void events.refetch()}>
          Refresh
        </button>
        <span className="hint">
          {events.dataUpdatedAt > 0 && (
            <>
              Updated <Time value={new Date(events.dataUpdatedAt)} />
              {anyQueued(rows) && `; again every ${REFRESH_MS / 1000} s while a delivery is queued`}.
            </>
          )}
        </span>
      </div>
      <ErrorNotice error={events.error} />
      {events.isPending ? (
        <p aria-busy="true">Loading events…</p>
      ) : rows.length === 0 && !events.isError ? (
        producer || user ? (
          <>
            <p className="empty wrap-anywhere">No events {describe(producer, user)}.</p>
            <p className="hint">Clear the filters to see every producer's events.</p>
          </>
        ) : (
          <p className="empty">No events from producers yet.</p>
        )
      ) : (
        rows.length > 0 && (
          <>
            <ProducerFunnels producers={events.data?.producers ?? []} />
            <EventTable events={rows} />
            <p className="hint">
              {plural(rows.length, "event")} shown{rows.length === LIMIT ? `: the ${LIMIT} newest` : ""}.
            </p>
          </>
        )
      )}
    </section>
  );
}

const describe = (producer?: string, user?: string) =>
  [producer && `from ${producer}`, user && `for user ${user}`].filter(Boolean).join(" and ");

function EventTable({ events }: { events: ProducerEvent[] }) {
  // Each cell carries its column's name: on a phone an event is a block of labelled lines (table.stacked),
  // the user and the deliveries under their label at full width. Wider, every column fits the page: a name
  // or an id stays whole while there is room and breaks anywhere when there is not (styles/deliveries.css),
  // so at 1366 px the box does not scroll and the last column is never cut off.
  return (
    <ScrollBox label="Producers' events">
      <table className="stacked deliveries">
        <caption className="visually-hidden">Producers' events, newest first, with their push deliveries</caption>
        <TableHead columns={["When", "Producer", "Event id", "User", "Notification", "Push deliveries"]} />
        <tbody>
          {events.map((event) => (
            <tr key={`${event.producer}\u0000${event.eventId}`}>
              <td data-label="When" className="when">
                <Time value={event.createdAt} />
              </td>
              <td data-label="Producer" className="name">
                {event.producer}
              </td>
              <td data-label="Event id" className="id">
                <code>{event.eventId}</code>
              </td>
              <td data-label="User" className="user label-above">
                <span className="user-email">{event.userEmail}</span>
                {event.userName && <span className="hint user-name">{event.userName}</span>}
              </td>
              <td data-label="Notification">
                {event.notificationId ? (
                  <code title={event.notificationId}>{short(event.notificationId)}</code>
                ) : (
                  <span className="hint">none (in-app off)</span>
                )}
              </td>
              <td data-label="Push deliveries" className="push label-above">
                {event.deliveries.length === 0 ? (
                  <span className="hint">{event.noPush ? noPushReasons[event.noPush] : NO_PUSH_UNKNOWN}</span>
                ) : (
                  <>
                    <EventFunnel funnel={event.funnel} />
                    <ul className="plain delivery-list">
                      {event.deliveries.map((delivery) => (
                        <DeliveryItem key={delivery.subscriptionId} delivery={delivery} />
                      ))}
                    </ul>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

/**
 * StackedTable's box, which a keyboard can scroll: in a window too narrow for a row (between the phone's
 * stacked layout and a laptop's width) it scrolls sideways, and then it takes focus, named, so that the
 * arrow keys reach what is cut off (axe-core's scrollable-region-focusable). While all of it shows, it
 * stays out of the tab order.
 */
function ScrollBox({ label, children }: { label: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => setScrolls(box.scrollWidth > box.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return (
    <div
      ref={ref}
      className="table-scroll"
      {...(scrolls ? { tabIndex: 0, role: "region", "aria-label": `${label}, scrolls sideways` } : {})}
    >
      {children}
    </div>
  );
}

const short = (id: string) => `${id.slice(0, 8)}…`;

/** What the push service's status means, in words. */
const codeMeanings: Record<number, string> = {
  400: "bad request",
  401: "unauthorized (VAPID)",
  403: "forbidden (VAPID key mismatch)",
  404: "subscription not found",
  410: "subscription expired",
  413: "payload too large",
  429: "too many requests",
  500: "push service error",
  502: "bad gateway",
  503: "push service unavailable",
  504: "gateway timeout",
};

/** The last attempt's outcome, led by words; null when there is nothing to say. */
function outcomeOf(delivery: Delivery): string | null {
  const code = delivery.lastStatusCode;
  if (code !== null) {
    const meaning = codeMeanings[code];
    if (code >= 200 && code < 300) return `Push service accepted it (HTTP ${code})`;
    return `Push service answered HTTP ${code}${meaning ? `: ${meaning}` : ""}`;
  }
  const error = delivery.lastError;
  if (!error) return delivery.status === "queued" && delivery.attempts === 0 ? "Not tried yet" : null;
  if (/^tim(eout|ed out)\b/i.test(error)) return "The push service did not answer in time";
  if (/^network\b/i.test(error)) return "Could not reach the push service";
  if (/address not allowed/i.test(error)) return "Not sent: the endpoint's address is inside the service's network";
  return "Not sent";
}

function DeliveryItem({ delivery }: { delivery: Delivery }) {
  const status = statuses[delivery.status];
  const outcome = outcomeOf(delivery);
  // The raw text, when it says more than the outcome line already does.
  const detail = delivery.lastError && !outcome?.startsWith(delivery.lastError) ? delivery.lastError : null;
  return (
    <li className="delivery">
      <span className="delivery-summary">
        <span className={`badge ${status.badge}`} title={status.meaning}>
          {status.label}
        </span>
        <span>{plural(delivery.attempts, "attempt")}</span>
        {delivery.status === "queued" && (
          <span>
            next attempt <Time value={delivery.nextAttemptAt} />
          </span>
        )}
        {delivery.status === "sent" && delivery.sentAt && (
          <span>
            sent <Time value={delivery.sentAt} />
          </span>
        )}
        {delivery.displayedAt && (
          <span>
            displayed <Time value={delivery.displayedAt} />
          </span>
        )}
        {delivery.clickedAt && (
          <span>
            clicked <Time value={delivery.clickedAt} />
          </span>
        )}
      </span>
      {outcome && <span className="delivery-outcome">{outcome}</span>}
      {detail && <span className="hint delivery-detail">Last error: {detail}</span>}
      <span className="hint">
        to subscription <code title={delivery.subscriptionId}>{short(delivery.subscriptionId)}</code>
      </span>
    </li>
  );
}
