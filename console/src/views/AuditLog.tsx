// The audit log, newest first, filtered by what the address says, 50 at a time with "Load more".
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef } from "react";
import { Link, useLocation } from "wouter";
import { useSearch } from "wouter/use-browser-location";
import { trpc } from "../api.js";
import { ACTION_WORDS, cohortIdsNamed, cohortNumbersIn, TARGET_TYPE_WORDS } from "../auditChange.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { StackedTable } from "../components/StackedTable.js";
import { proPath } from "../links.js";
import { useAddressDraft } from "../useAddressDraft.js";
import { AuditRow } from "./AuditRow.js";
import { ACTIONS, type AuditFilters, filtersFromSearch, filtersToSearch, TARGET_TYPES, toListInput } from "./auditFilters.js";

export function AuditLog() {
  // The query string as the browser holds it, decoded once by filtersFromSearch (auditFilters.ts).
  const search = useSearch();
  const applied = filtersFromSearch(search);
  return (
    <>
      <h1>Audit log</h1>
      <FilterForm search={search} initial={applied} />
      {applied.proId && <ProScope proId={applied.proId} />}
      <AuditEvents filters={applied} />
    </>
  );
}

function FilterForm({ initial, search }: { initial: AuditFilters; search: string }) {
  const [, navigate] = useLocation();
  const [draft, setDraft] = useAddressDraft(initial, search);
  const bind = (key: keyof AuditFilters) => ({
    value: draft[key],
    onChange: (e: { target: { value: string } }) => setDraft({ ...draft, [key]: e.target.value }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const query = filtersToSearch(draft);
    navigate(query ? `/audit?${query}` : "/audit");
  };
  return (
    <form onSubmit={submit} className="card filters audit-filters" aria-label="Filters">
      <Choice label="Action" options={ACTIONS} words={ACTION_WORDS} {...bind("action")} />
      <div className="field">
        <label htmlFor="audit-pro-id">Pro id</label>
        <input id="audit-pro-id" {...bind("proId")} aria-describedby="audit-pro-id-hint" />
        <span id="audit-pro-id-hint" className="hint">
          Its own changes and the cohort changes that set its flag
        </span>
      </div>
      <label>
        Actor (email or user id)
        <input {...bind("actor")} autoComplete="off" />
      </label>
      <Choice label="Target type" options={TARGET_TYPES} words={TARGET_TYPE_WORDS} {...bind("targetType")} />
      <label>
        Target id
        <input {...bind("targetId")} />
      </label>
      <label>
        Since (local time)
        <input type="datetime-local" step={1} {...bind("since")} />
      </label>
      <label>
        Until (local time)
        <input type="datetime-local" step={1} {...bind("until")} />
      </label>
      <div className="row filter-actions">
        <button type="submit" className="primary">
          Apply filters
        </button>
        <button type="button" onClick={() => navigate("/audit")}>
          Clear
        </button>
      </div>
    </form>
  );
}

type ChoiceProps = {
  label: string;
  options: readonly string[];
  words: Record<string, string>;
  value: string;
  onChange(e: { target: { value: string } }): void;
};

/** A labelled select of the given values in words, the value's code beside them, "any" first. */
function Choice({ label, options, words, ...field }: ChoiceProps) {
  return (
    <label>
      {label}
      <select {...field}>
        <option value="">any</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {words[option] && words[option] !== option ? `${words[option]} (${option})` : option}
          </option>
        ))}
      </select>
    </label>
  );
}

/** What a pro filter finds, and the pro's own flag history a click away. */
function ProScope({ proId }: { proId: string }) {
  return (
    <p className="hint audit-scope">
      Changes of <span className="audit-id">{proId}</span> itself and the cohort activations and rollbacks that set its flag.{" "}
      <Link href={proPath(proId)}>Open {proId}&apos;s flag history</Link>
    </p>
  );
}

/**
 * Cohorts are named by number, as everywhere else in the console: from the event itself when its record
 * carries the number, else from the list of cohorts, fetched again when an event names a cohort the list
 * does not know (made since, through the API or another tab).
 */
function useCohortNumbers(events: Parameters<typeof cohortNumbersIn>[0]): Map<string, number> {
  const cohorts = useQuery(trpc.restriction.listCohorts.queryOptions());
  const numbers = new Map([...(cohorts.data ?? []).map((c) => [c.id, c.cohortNumber] as const), ...cohortNumbersIn(events)]);
  const unknown = cohortIdsNamed(events).filter((id) => !numbers.has(id));
  // Each unknown id asks once: a cohort the list still lacks is named by its id.
  const asked = useRef(new Set<string>());
  const unknownKey = unknown.join(" ");
  const { isSuccess, refetch } = cohorts;
  useEffect(() => {
    const fresh = unknownKey.split(" ").filter((id) => id && !asked.current.has(id));
    if (!isSuccess || fresh.length === 0) return;
    for (const id of fresh) asked.current.add(id);
    void refetch();
  }, [unknownKey, isSuccess, refetch]);
  return numbers;
}

function AuditEvents({ filters }: { filters: AuditFilters }) {
  const events = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(toListInput(filters), {
      getNextPageParam: (page) => page.nextCursor ?? undefined,
    }),
  );
  const rows = events.data?.pages.flatMap((page) => page.events) ?? [];
  const cohortNumbers = useCohortNumbers(rows);
  return (
    <section aria-label="Events">
      <ErrorNotice error={events.error} />
      {events.isPending ? (
        <p aria-busy="true">Loading events…</p>
      ) : rows.length === 0 && !events.isError ? (
        <p className="empty">No event matches these filters.</p>
      ) : (
        <StackedTable
          className="audit-events"
          caption="Audit events, newest first"
          columns={["When", "Actor", "Action", "Target", "Reason", "What changed"]}
        >
          {rows.map((event) => (
            <AuditRow key={event.id} event={event} cohortNumbers={cohortNumbers} />
          ))}
        </StackedTable>
      )}
      <p className="row">
        <span className="hint">
          {rows.length} shown{events.hasNextPage ? "" : rows.length ? ", the last page" : ""}.
        </span>
        {events.hasNextPage && (
          <button type="button" onClick={() => void events.fetchNextPage()} disabled={events.isFetchingNextPage}>
            {events.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        )}
      </p>
    </section>
  );
}
