// The signed-in user's own notifications (anyone signed in, admin or not): newest first, filtered by
// category or text, a page at a time; mark one or all read, delete one. The same procedures an app uses
// (notifications.list, markRead, markAllRead, remove); the header's live unread count follows each change.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { CATEGORIES } from "../../../db/categories.js";
import { type RouterOutputs, trpc } from "../api.js";
import { ConfirmDialog } from "../components/ConfirmDialog.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { Time } from "../components/Time.js";
import { plural } from "../format.js";
import { notificationHref } from "../links.js";

type Notification = RouterOutputs["notifications"]["list"]["notifications"][number];
type Filters = { category: string; search: string };

/** A page of the inbox: short enough to scan, long enough that paging is rare. */
export const INBOX_PAGE_SIZE = 20;
const NO_FILTERS: Filters = { category: "", search: "" };

const titleIdOf = (n: Notification) => `notification-${n.id}-title`;

export function Inbox() {
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [done, setDone] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Notification | null>(null);
  // The filter form keeps its own draft (and focus on Apply); "Show all" starts it afresh.
  const [formGeneration, setFormGeneration] = useState(0);
  const doneRef = useRef<HTMLParagraphElement>(null);

  const input = {
    category: filters.category || undefined,
    search: filters.search || undefined,
    page,
    limit: INBOX_PAGE_SIZE,
  };
  const list = useQuery({ ...trpc.notifications.list.queryOptions(input), placeholderData: keepPreviousData });
  // APP_BASE_URL: where a notification's path leads (null: the path is shown as text). It is set at start-up.
  const app = useQuery({ ...trpc.notifications.app.queryOptions(), staleTime: Number.POSITIVE_INFINITY });
  const appBaseUrl = app.data?.appBaseUrl ?? null;
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.notifications.list.pathKey() });

  const markRead = useMutation(
    trpc.notifications.markRead.mutationOptions({
      onSuccess: async (_answer, { id }) => {
        // The button goes once the row reads "Read": focus stays on that notification, at its title.
        document.getElementById(`notification-${id}-title`)?.focus();
        await refresh();
      },
    }),
  );
  const markAllRead = useMutation(
    trpc.notifications.markAllRead.mutationOptions({
      onSuccess: async ({ updated }) => {
        setDone(
          updated === 0 ? "Nothing to mark: every notification here was read already." : `Marked ${plural(updated, "notification")} read.`,
        );
        await refresh();
        // The button was disabled while it worked, which left focus on <body>: the message takes it.
        doneRef.current?.focus();
      },
    }),
  );
  const remove = useMutation(
    trpc.notifications.remove.mutationOptions({
      onSuccess: async () => {
        setDone(`Deleted “${deleting?.title ?? "the notification"}”.`);
        setDeleting(null);
        await refresh();
        // Its row and buttons are gone: focus goes to the message that says so, above the list.
        doneRef.current?.focus();
      },
    }),
  );

  const data = list.data;
  const lastPage = data ? Math.max(1, Math.ceil(data.total / INBOX_PAGE_SIZE)) : 1;
  // Deleting the last notification of the last page leaves it empty: show the page before.
  useEffect(() => {
    if (data && !list.isPlaceholderData && data.notifications.length === 0 && page > 1) setPage(lastPage);
  }, [data, list.isPlaceholderData, page, lastPage]);

  const filtered = filters.category !== "" || filters.search !== "";
  const applyFilters = (next: Filters) => {
    setFilters(next);
    setPage(1);
    setDone(null);
  };
  const categoryName = filters.category || null;

  return (
    <>
      <h1>Your notifications</h1>
      <p className="hint">What the service sent you in-app, newest first: the same inbox your apps show.</p>
      {/* Nothing to filter in an empty inbox. */}
      {(filtered || !data || data.total > 0) && <FilterForm key={formGeneration} initial={filters} onApply={applyFilters} />}
      <section aria-labelledby="inbox-list-title" className="inbox">
        <div className="row inbox-head">
          <h2 id="inbox-list-title">
            {data ? (filtered ? `${plural(data.total, "match", "matches")}` : plural(data.total, "notification")) : "Notifications"}
            {data && data.unread_count + data.total > 0 && <span className="hint inbox-unread">{data.unread_count} unread in all</span>}
          </h2>
          {data && data.total > 0 && (
            <button
              type="button"
              disabled={markAllRead.isPending}
              onClick={() => {
                setDone(null);
                markAllRead.mutate({ category: categoryName ?? undefined });
              }}
            >
              {categoryName ? `Mark all ${categoryName} read` : "Mark all read"}
              {/* The procedure knows categories, not text: with a text filter it marks more than the matches. */}
              {filters.search && ", not only these matches"}
            </button>
          )}
        </div>
        <ErrorNotice title="Your notifications could not be loaded" error={list.error} />
        <ErrorNotice title="Not marked read" error={markRead.error ?? markAllRead.error} focus />
        <p role="status" ref={doneRef} tabIndex={-1} className={done ? "notice notice-ok" : "visually-hidden"}>
          {done}
        </p>
        {list.isPending ? (
          <p aria-busy="true">Loading your notifications…</p>
        ) : !data ? null : data.notifications.length === 0 ? (
          <div className="empty inbox-empty">
            {filtered ? (
              <p>
                No notification matches these filters.{" "}
                <button
                  type="button"
                  onClick={() => {
                    applyFilters(NO_FILTERS);
                    setFormGeneration(formGeneration + 1);
                  }}
                >
                  Show all
                </button>
              </p>
            ) : (
              <p>No notifications. What the service sends you in-app lands here.</p>
            )}
          </div>
        ) : (
          <>
            <ul className="inbox-list" aria-busy={list.isPlaceholderData || undefined}>
              {data.notifications.map((n) => (
                <NotificationItem
                  key={n.id}
                  notification={n}
                  appBaseUrl={appBaseUrl}
                  marking={markRead.isPending && markRead.variables?.id === n.id}
                  onMarkRead={() => {
                    setDone(null);
                    markRead.mutate({ id: n.id });
                  }}
                  onDelete={() => {
                    remove.reset();
                    setDone(null);
                    setDeleting(n);
                  }}
                />
              ))}
            </ul>
            {lastPage > 1 && (
              <nav className="row pager" aria-label="Pages of your notifications">
                <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Newer
                </button>
                <span>
                  Page {page} of {lastPage}
                </span>
                <button type="button" disabled={!data.has_more} onClick={() => setPage(page + 1)}>
                  Older
                </button>
              </nav>
            )}
          </>
        )}
      </section>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this notification?"
        confirmLabel={remove.isPending ? "Deleting…" : "Delete"}
        tone="danger"
        confirmDisabled={remove.isPending}
        onConfirm={() => deleting && remove.mutate({ id: deleting.id })}
        onCancel={() => setDeleting(null)}
      >
        <p>“{deleting?.title}” leaves your inbox, here and in your apps. There is no undo.</p>
        <ErrorNotice title="Not deleted" error={remove.error} />
      </ConfirmDialog>
    </>
  );
}

function FilterForm({ initial, onApply }: { initial: Filters; onApply(filters: Filters): void }) {
  const ids = useId();
  const [draft, setDraft] = useState(initial);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ category: draft.category, search: draft.search.trim() });
  };
  return (
    <form onSubmit={submit} className="card filters" aria-label="Filter your notifications">
      <label>
        Category
        <select value={draft.category} onChange={(e) => setDraft({ ...draft, category: e.target.value })}>
          <option value="">All categories</option>
          {CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        Title or text contains
        <input
          type="search"
          maxLength={200}
          value={draft.search}
          aria-describedby={`${ids}-search-hint`}
          onChange={(e) => setDraft({ ...draft, search: e.target.value })}
        />
        <span id={`${ids}-search-hint`} className="hint">
          Upper and lower case alike.
        </span>
      </label>
      <div className="row filter-actions">
        <button type="submit" className="primary">
          Apply filters
        </button>
      </div>
    </form>
  );
}

function NotificationItem({
  notification: n,
  appBaseUrl,
  marking,
  onMarkRead,
  onDelete,
}: {
  notification: Notification;
  appBaseUrl: string | null;
  marking: boolean;
  onMarkRead(): void;
  onDelete(): void;
}) {
  const unread = n.readAt === null;
  const url = typeof n.data?.url === "string" ? n.data.url : null;
  const href = url === null ? null : notificationHref(url, appBaseUrl);
  return (
    <li className={unread ? "inbox-item is-unread" : "inbox-item"}>
      <div className="inbox-item-head">
        <h3 id={titleIdOf(n)} tabIndex={-1}>
          {n.title}
        </h3>
        <span className={`badge ${unread ? "badge-pending" : "badge-off"}`}>{unread ? "Unread" : "Read"}</span>
      </div>
      {n.body && <p className="inbox-body">{n.body}</p>}
      <p className="hint inbox-meta">
        <span>
          {n.category} · <code>{n.eventType}</code>
        </span>
        <span>
          sent <Time value={n.dateCreated} />
        </span>
        {n.readAt && (
          <span>
            read <Time value={n.readAt} />
          </span>
        )}
        {url && (
          <span>
            {/* A link only where the service's rule allows it (older rows stay text), a path only into APP_BASE_URL. */}
            leads to{" "}
            {href ? (
              <a href={href} rel="noopener noreferrer">
                <code>{url}</code>
              </a>
            ) : (
              <code>{url}</code>
            )}
          </span>
        )}
      </p>
      <div className="row inbox-actions">
        {unread && (
          <button type="button" disabled={marking} aria-label={`Mark read: ${n.title}`} onClick={onMarkRead}>
            Mark read
          </button>
        )}
        <button type="button" aria-label={`Delete ${n.title}`} onClick={onDelete}>
          Delete…
        </button>
      </div>
    </li>
  );
}
