// One audit event: who did what to which record, with the record before and after on demand.
import { Link } from "wouter";
import type { RouterOutputs } from "../api.js";
import { Time } from "../components/Time.js";
import { proPath } from "../links.js";

type AuditEvent = RouterOutputs["audit"]["list"]["events"][number];

function Target({ type, id, cohortNumber }: { type: string; id: string; cohortNumber?: number }) {
  if (type === "cohort") return <Link href={`/cohorts/${id}`}>cohort {cohortNumber ?? id}</Link>;
  if (type === "pro") return <Link href={proPath(id)}>pro {id}</Link>;
  return (
    <>
      {type} <code>{id}</code>
    </>
  );
}

const json = (value: unknown) => (value === null || value === undefined ? "none" : JSON.stringify(value, null, 2));

export function AuditRow({ event, cohortNumbers }: { event: AuditEvent; cohortNumbers: Map<string, number> }) {
  return (
    <tr>
      <td>
        <Time value={event.at} />
      </td>
      <td>
        {event.actor.email}
        {event.impersonatedBy && <div className="hint">impersonated by {event.impersonatedBy.email}</div>}
      </td>
      <td>
        <code>{event.action}</code>
      </td>
      <td>
        <Target type={event.target.type} id={event.target.id} cohortNumber={cohortNumbers.get(event.target.id)} />
      </td>
      <td>{event.reason ?? "—"}</td>
      <td>
        <details>
          <summary>before / after</summary>
          <div className="before-after">
            <div>
              <strong>Before</strong>
              <pre>{json(event.before)}</pre>
            </div>
            <div>
              <strong>After</strong>
              <pre>{json(event.after)}</pre>
            </div>
          </div>
        </details>
      </td>
    </tr>
  );
}
