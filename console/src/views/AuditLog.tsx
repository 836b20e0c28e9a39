// The audit log, newest first, filtered by what the address says, 50 at a time with "Load more".
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useLocation, useSearch } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { TableHead } from "../components/TableHead.js";
import { AuditRow } from "./AuditRow.js";
import { ACTIONS, type AuditFilters, filtersFromSearch, filtersToSearch, TARGET_TYPES, toListInput } from "./auditFilters.js";

export function AuditLog() {
  const search = useSearch();
  const applied = filtersFromSearch(search);
  return (
    <>
      <h1>Audit log</h1>
      <FilterForm key={search} initial={applied} />
      <AuditEvents filters={applied} />
    </>
  );
}

function FilterForm({ initial }: { initial: AuditFilters }) {
  const [, navigate] = useLocation();
  const [draft, setDraft] = useState(initial);
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
    <form onSubmit={submit} className="card filters" aria-label="Filters">
      <Choice label="Action" options={ACTIONS} {...bind("action")} />
      <Choice label="Target type" options={TARGET_TYPES} {...bind("targetType")} />
      <label>
        Target id
        <input {...bind("targetId")} />
      </label>
      <label>
        Actor id
        <input {...bind("actorId")} />
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

type ChoiceProps = { label: string; options: readonly string[]; value: string; onChange(e: { target: { value: string } }): void };

/** A labelled select of the given values, "any" first. */
function Choice({ label, options, ...field }: ChoiceProps) {
  return (
    <label>
      {label}
      <select {...field}>
        <option value="">any</option>
        {options.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    </label>
  );
}

function AuditEvents({ filters }: { filters: AuditFilters }) {
  const events = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(toListInput(filters), {
      getNextPageParam: (page) => page.nextCursor ?? undefined,
    }),
  );
  const rows = events.data?.pages.flatMap((page) => page.events) ?? [];
  // Cohorts are named by number, as everywhere else in the console.
  const cohorts = useQuery(trpc.restriction.listCohorts.queryOptions());
  const cohortNumbers = new Map((cohorts.data ?? []).map((c) => [c.id, c.cohortNumber]));
  return (
    <section aria-label="Events">
      <ErrorNotice error={events.error} />
      {events.isPending ? (
        <p aria-busy="true">Loading events…</p>
      ) : rows.length === 0 && !events.isError ? (
        <p className="empty">No event matches these filters.</p>
      ) : (
        <table>
          <TableHead columns={["When", "Actor", "Action", "Target", "Reason", "Change"]} />
          <tbody>
            {rows.map((event) => (
              <AuditRow key={event.id} event={event} cohortNumbers={cohortNumbers} />
            ))}
          </tbody>
        </table>
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
