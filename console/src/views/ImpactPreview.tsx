// What an activation or rollback would do to the cohort's pros (restriction.previewCohort), as counts
// with the ids behind each one a click away.
import type { RouterOutputs } from "../api.js";
import { Explained } from "../components/Explained.js";
import { IdList } from "../components/IdList.js";
import { plural } from "../format.js";
import { explainBlocker } from "../gates.js";

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
            <p>
              <IdList ids={ids} />
            </p>
          </details>
        )}
      </td>
    </tr>
  );
}

type Props = {
  preview: Preview;
  cohortNumbers: Map<string, number>;
  /** The dialog requests the change (approvals required): a blocked activation may still be requested. */
  requesting?: boolean;
};

export function ImpactPreview({ preview, cohortNumbers, requesting = false }: Props) {
  const others = preview.alsoInOtherActiveCohorts;
  const name = (id: string) => (cohortNumbers.has(id) ? `cohort ${cohortNumbers.get(id)}` : id);
  return (
    <>
      {preview.blockedBy && (
        <div role="alert" className="notice notice-error">
          <p>
            <Explained lead="Activation is blocked." text={explainBlocker(preview.blockedBy)} />
          </p>
          {requesting && <p>You may request it all the same: approving it is refused until a gate check passes.</p>}
        </div>
      )}
      {preview.unknownPros.length > 0 && (
        <div className="notice notice-warn">
          <p>
            {preview.unknownPros.length === 1
              ? "1 id of this cohort is not a known pro"
              : `${preview.unknownPros.length} ids of this cohort are not known pros`}{" "}
            (not in the pros table): <IdList ids={preview.unknownPros} label="Ids that are not known pros" />.{" "}
            {preview.action === "activate"
              ? `Activation restricts ${preview.unknownPros.length === 1 ? "it" : "them"} all the same; check for a typo first.`
              : "Their flag is switched off all the same."}
          </p>
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
                        <code className="id">{o.proId}</code>: {o.cohortIds.map(name).join(", ")}
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
          rollback turns {others.length === 1 ? "it" : "them"} off even so, and that cohort will show {plural(others.length, "pro")} off.
        </p>
      )}
    </>
  );
}
