// How much of an active cohort is restricted now (restriction.cohortCoverage): in the cohort list a line
// per cohort, on the cohort page which pros are off and the change that switched each off. A rollback of
// another cohort sharing its pros switches them off without a word on this cohort otherwise.
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { StackedTable } from "../components/StackedTable.js";
import { Time } from "../components/Time.js";
import { causeOf, offCauses } from "../coverage.js";
import { plural } from "../format.js";
import { proPath } from "../links.js";

export const coverageQuery = (id: string) => trpc.restriction.cohortCoverage.queryOptions({ id });

/** The cohort list's cell: "20 of 20", or "15 of 20" and what switched the others off. */
export function CoverageCell({ id, pros }: { id: string; pros: number }) {
  const coverage = useQuery(coverageQuery(id));
  if (coverage.isPending) return <span aria-busy="true">…</span>;
  if (coverage.isError) return <span className="hint">could not be read</span>;
  const { restricted, notRestricted } = coverage.data;
  if (notRestricted.length === 0) return <>all {pros}</>;
  return (
    <span className="coverage-off">
      <span className="badge badge-warn">
        {restricted} of {pros}
      </span>{" "}
      <span>
        {plural(notRestricted.length, "pro")} off:{" "}
        {offCauses(coverage.data)
          .map(({ cause, count }) => `${cause} (${count})`)
          .join(", ")}
      </span>
    </span>
  );
}

/** The cohort page's card: which pros are off now and why, each linked to its pro and audit event. */
export function CoverageCard({ id, pros }: { id: string; pros: number }) {
  const coverage = useQuery(coverageQuery(id));
  if (coverage.isPending) return <p aria-busy="true">Reading which pros are restricted now…</p>;
  if (coverage.isError) return <ErrorNotice title="Coverage not read" error={coverage.error} />;
  const { restricted, notRestricted } = coverage.data;
  if (notRestricted.length === 0) {
    return (
      <p className="notice notice-ok" role="status">
        All {plural(pros, "pro")} of this cohort are restricted now.
      </p>
    );
  }
  return (
    <section className="card notice-warn" aria-labelledby="coverage-title">
      <h2 id="coverage-title">
        {restricted} of {plural(pros, "pro")} restricted now
      </h2>
      <p>
        The cohort still reads active, but later changes switched {notRestricted.length} of its pros off, and nothing switches them back on
        by itself. To restrict them again, roll the cohort back and activate it again after a fresh gate check, or switch them on per pro.
      </p>
      <StackedTable
        className="coverage"
        caption="Pros of the cohort that are not restricted now, and why"
        columns={["Pro", "Switched off by", "When", "By", "Reason", "Audit event"]}
      >
        {notRestricted.map(({ proId, turnedOffBy }) => (
          <tr key={proId}>
            <td data-label="Pro">
              <Link href={proPath(proId)} className="id">
                {proId}
              </Link>
            </td>
            <td data-label="Off by">
              {turnedOffBy?.via === "cohort" && turnedOffBy.cohortId ? (
                <Link href={`/cohorts/${turnedOffBy.cohortId}`}>{causeOf(turnedOffBy)}</Link>
              ) : (
                causeOf(turnedOffBy)
              )}
            </td>
            <td data-label="When">
              <Time value={turnedOffBy?.at} />
            </td>
            <td data-label="By">{turnedOffBy?.actor.email ?? "—"}</td>
            <td data-label="Reason">{turnedOffBy?.reason ?? "—"}</td>
            <td data-label="Audit event">
              {turnedOffBy ? (
                <Link href={`/audit?${new URLSearchParams({ proId })}`} title={turnedOffBy.auditEventId}>
                  the pro&apos;s events
                </Link>
              ) : (
                "—"
              )}
            </td>
          </tr>
        ))}
      </StackedTable>
    </section>
  );
}
