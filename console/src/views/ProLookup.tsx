// A pro's restriction status and the history of its flag, looked up by id.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { trpc, trpcClient } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { Time } from "../components/Time.js";
import { proPath } from "../links.js";
import { RESULT_FOCUS_STATE, resultTakesFocus } from "../useHeadingFocus.js";
import { ProHistory } from "./ProHistory.js";

export function ProLookup({ proId }: { proId?: string }) {
  const [, navigate] = useLocation();
  const [draft, setDraft] = useState(proId ?? "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The operator asked for this pro: focus goes to its status (or why there is none), not the <h1>.
    if (draft.trim()) navigate(proPath(draft.trim()), { state: RESULT_FOCUS_STATE });
  };
  return (
    <>
      <h1>Pro lookup</h1>
      {/* biome-ignore lint/a11y/useSemanticElements: <search> is newer than some browsers operators use; role=search is its fallback */}
      <form onSubmit={submit} className="row inline-form" role="search">
        <label>
          Pro id
          <input value={draft} onChange={(e) => setDraft(e.target.value)} required placeholder="pro-0001" />
        </label>
        <button type="submit" className="primary">
          Look up
        </button>
      </form>
      {!proId && <ActivePros />}
      {proId && <ProStatus key={proId} proId={proId} />}
      {proId && <ProHistory key={`history-${proId}`} proId={proId} />}
    </>
  );
}

function ProStatus({ proId }: { proId: string }) {
  const status = useQuery(trpc.restriction.getPro.queryOptions({ proId }));
  // Once, when the answer is in, and only after a Look up (a link or Back leaves focus to the frame).
  const wantsFocus = useRef(resultTakesFocus());
  const resultRef = useRef<HTMLElement & HTMLDivElement>(null);
  useEffect(() => {
    if (status.isPending || !wantsFocus.current) return;
    wantsFocus.current = false;
    resultRef.current?.focus({ preventScroll: true });
    resultRef.current?.scrollIntoView({ block: "nearest" });
  }, [status.isPending]);
  const cohorts = useQuery(trpc.restriction.listCohorts.queryOptions());
  // Whether the id is in the pros table: the new-cohort preview of this one pro (it writes nothing).
  const known = useQuery({
    queryKey: ["pro-known", proId],
    queryFn: async () => (await trpcClient.restriction.previewNewCohort.mutate({ proIds: [proId] })).unknownPros.length === 0,
  });
  if (status.isPending) return <p aria-busy="true">Loading {proId}…</p>;
  if (status.isError)
    return (
      <div ref={resultRef} tabIndex={-1}>
        <ErrorNotice error={status.error} />
      </div>
    );
  const pro = status.data;
  // A cohort may list an id that is not in the pros table and its activation writes the flag all the same,
  // so a status says nothing of whether the pro exists: an unknown id is said with or without one.
  const unknown = known.data === false;
  return (
    <section className="card" aria-labelledby="pro-title" ref={resultRef} tabIndex={-1}>
      <h2 id="pro-title">
        {pro.proId}{" "}
        <span className={`badge ${pro.restrictionActive ? "badge-active" : "badge-off"}`}>
          {pro.restrictionActive ? "Restricted" : "Not restricted"}
        </span>
        {unknown && (
          <>
            {" "}
            <span className="badge badge-warn">Not a known pro</span>
          </>
        )}
      </h2>
      {unknown && "updatedAt" in pro && (
        <div role="note" className="notice notice-warn">
          <p>
            Not a known pro: the id is not in the pros table, yet a status is recorded for it: a cohort listed this id, and its activation
            or rollback wrote the flag all the same. Check it for a typo; a service reading this id gets this status.
          </p>
        </div>
      )}
      {"updatedAt" in pro ? (
        <dl className="facts">
          <dt>Set by</dt>
          <dd>
            {pro.cohortId ? (
              <Link href={`/cohorts/${pro.cohortId}`}>
                cohort {cohorts.data?.find((c) => c.id === pro.cohortId)?.cohortNumber ?? pro.cohortId}
              </Link>
            ) : (
              "per pro"
            )}
          </dd>
          <dt>Updated</dt>
          <dd>
            <Time value={pro.updatedAt} />
          </dd>
        </dl>
      ) : known.data === false ? (
        <p className="empty">No status recorded; not a known pro (the id is not in the pros table). Check it for a typo.</p>
      ) : (
        <p className="empty">No status recorded: the restriction was never set for this pro.</p>
      )}
    </section>
  );
}

const SHOWN = 200;

/** Before a lookup: the pros whose restriction is on now, by id. */
function ActivePros() {
  const active = useQuery(trpc.restriction.listActive.queryOptions());
  if (active.isPending) return <p aria-busy="true">Loading the restricted pros…</p>;
  if (active.isError) return <ErrorNotice error={active.error} />;
  return (
    <section className="card" aria-labelledby="active-pros-title">
      <h2 id="active-pros-title">Restricted now ({active.data.length})</h2>
      {active.data.length === 0 ? (
        <p className="empty">No pro has the restriction on.</p>
      ) : (
        <ul className="id-grid">
          {active.data.slice(0, SHOWN).map((pro) => (
            <li key={pro.proId}>
              <Link href={proPath(pro.proId)}>{pro.proId}</Link>
            </li>
          ))}
        </ul>
      )}
      {active.data.length > SHOWN && <p className="hint">The first {SHOWN} by id; look the others up by id.</p>}
    </section>
  );
}
