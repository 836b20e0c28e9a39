// What an activation or rollback would do to the cohort's pros (restriction.previewCohort), as counts
// with the ids behind each one a click away.
import type { RouterOutputs } from "../api.js";

type Preview = RouterOutputs["restriction"]["previewCohort"];

function Bucket({ label, ids }: { label: string; ids: string[] }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td className="num">{ids.length}</td>
      <td>
        {ids.length > 0 && (
          <details>
            <summary>{ids.length === 1 ? "show the id" : `show the ${ids.length} ids`}</summary>
            <p className="id-list">{ids.join(", ")}</p>
          </details>
        )}
      </td>
    </tr>
  );
}

export function ImpactPreview({ preview, cohortNumbers }: { preview: Preview; cohortNumbers: Map<string, number> }) {
  const others = preview.alsoInOtherActiveCohorts;
  const name = (id: string) => (cohortNumbers.has(id) ? `cohort ${cohortNumbers.get(id)}` : id);
  return (
    <>
      {preview.blockedBy && (
        <div role="alert" className="notice notice-error">
          <p>{preview.blockedBy}</p>
        </div>
      )}
      <table className="preview">
        <caption className="visually-hidden">Effect on the cohort&apos;s pros</caption>
        <tbody>
          <Bucket label="Turn on" ids={preview.turnOn} />
          <Bucket label="Turn off" ids={preview.turnOff} />
          <Bucket label="Unchanged" ids={preview.unchanged} />
          <Bucket label="Unknown pros" ids={preview.unknownPros} />
          <tr>
            <th scope="row">Also in other active cohorts</th>
            <td className="num">{others.length}</td>
            <td>
              {others.length > 0 && (
                <details>
                  <summary>show which</summary>
                  <ul className="plain">
                    {others.map((o) => (
                      <li key={o.proId}>
                        <code>{o.proId}</code>: {o.cohortIds.map(name).join(", ")}
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </td>
          </tr>
        </tbody>
      </table>
      {preview.action === "rollback" && others.length > 0 && (
        <p className="notice notice-warn">
          {others.length === 1 ? "1 pro of this cohort is" : `${others.length} pros of this cohort are`} also in another active cohort; the
          rollback turns {others.length === 1 ? "it" : "them"} off even so.
        </p>
      )}
    </>
  );
}
