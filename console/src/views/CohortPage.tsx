// One cohort: what it is, how much of it is restricted now (when active), its gate checks, the actions that change its pros and the requests for them.
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { StatusBadge } from "../components/StatusBadge.js";
import { Time } from "../components/Time.js";
import { proPath } from "../links.js";
import { ChangeRequestHistory } from "./ChangeRequestHistory.js";
import { CohortActions } from "./CohortActions.js";
import { CoverageCard } from "./CohortCoverage.js";
import { GateCheckForm } from "./GateCheckForm.js";
import { GateCheckHistory } from "./GateCheckHistory.js";

export function CohortPage({ id }: { id: string }) {
  // There is no single-cohort procedure: the list is small (cohorts by number) and already cached.
  const cohorts = useQuery(trpc.restriction.listCohorts.queryOptions());
  const cohort = cohorts.data?.find((c) => c.id === id);
  const cohortNumbers = new Map((cohorts.data ?? []).map((c) => [c.id, c.cohortNumber]));

  if (cohorts.isPending) return <p aria-busy="true">Loading cohort…</p>;
  if (cohorts.isError) return <ErrorNotice error={cohorts.error} />;
  if (!cohort) {
    return (
      <div role="alert" className="notice notice-error">
        <p>Cohort {id} not found.</p>
        <Link href="/cohorts">Back to cohorts</Link>
      </div>
    );
  }
  return (
    <>
      <p className="crumbs">
        <Link href="/cohorts">Cohorts</Link> › Cohort {cohort.cohortNumber}
      </p>
      <section aria-labelledby="cohort-title">
        <h1 id="cohort-title">
          Cohort {cohort.cohortNumber} <StatusBadge status={cohort.status} />
        </h1>
        <dl className="facts">
          <dt>Pros</dt>
          <dd>{cohort.proIds.length}</dd>
          <dt>Created</dt>
          <dd>
            <Time value={cohort.createdAt} />
          </dd>
          <dt>Activated</dt>
          <dd>
            <Time value={cohort.activatedAt} />
          </dd>
          <dt>Rolled back</dt>
          <dd>
            <Time value={cohort.rollbackAt} />
            {cohort.rollbackReason && <> — {cohort.rollbackReason}</>}
          </dd>
          <dt>Id</dt>
          <dd>
            <code>{cohort.id}</code>
          </dd>
        </dl>
        <details>
          <summary>Pro ids ({cohort.proIds.length})</summary>
          <ul className="id-grid">
            {cohort.proIds.map((proId) => (
              <li key={proId}>
                <Link href={proPath(proId)}>{proId}</Link>
              </li>
            ))}
          </ul>
        </details>
      </section>
      {cohort.status === "active" && <CoverageCard id={cohort.id} pros={cohort.proIds.length} />}
      <CohortActions cohort={cohort} cohortNumbers={cohortNumbers} />
      <ChangeRequestHistory cohortId={cohort.id} cohortNumber={cohort.cohortNumber} />
      <GateCheckForm cohortId={cohort.id} />
      <GateCheckHistory cohortId={cohort.id} />
    </>
  );
}
