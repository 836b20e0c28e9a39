// The impact a change request was made with beside the impact now: a table of pros by kind, and what moved in between.
import { IdList } from "../components/IdList.js";
import { explainBlocker } from "../gates.js";
import { differences, type Impact } from "./changeRequests.js";

const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id) => b.includes(id));

function Ids({ ids }: { ids: string[] }) {
  return (
    <>
      <span className="count">{ids.length}</span>
      {ids.length > 0 && (
        <details>
          <summary>{ids.length === 1 ? "the id" : `the ${ids.length} ids`}</summary>
          <p>
            <IdList ids={ids} />
          </p>
        </details>
      )}
    </>
  );
}

const others = (impact: Impact) => impact.alsoInOtherActiveCohorts.map((o) => o.proId);

/** The two previews side by side, a row per kind of pro; a cell that differs from the request's is marked. */
export function CompareImpact({ requested, now }: { requested: Impact; now: Impact | undefined }) {
  const rows: { label: string; ids(i: Impact): string[] }[] = [
    { label: "Turn on", ids: (i) => i.turnOn },
    { label: "Turn off", ids: (i) => i.turnOff },
    { label: "Unchanged", ids: (i) => i.unchanged },
    { label: "Unknown pros", ids: (i) => i.unknownPros },
    { label: "Also in other active cohorts", ids: others },
  ];
  return (
    <div className="table-scroll">
      <table className="compare">
        <caption className="visually-hidden">
          The cohort&apos;s pros by what the change does to them{now ? ": when requested and now" : ""}
        </caption>
        <thead>
          <tr>
            <th scope="col">Pros</th>
            <th scope="col">When requested</th>
            {now && <th scope="col">Now</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.label}>
              <th scope="row">{row.label}</th>
              <td>
                <Ids ids={row.ids(requested)} />
              </td>
              {now && (
                <td className={sameIds(row.ids(requested), row.ids(now)) ? undefined : "changed"}>
                  <Ids ids={row.ids(now)} />
                  {!sameIds(row.ids(requested), row.ids(now)) && <span className="badge badge-warn">changed</span>}
                </td>
              )}
            </tr>
          ))}
          {requested.action === "activate" && (
            <tr>
              <th scope="row">Gates</th>
              <td>
                <Gates blockedBy={requested.blockedBy} />
              </td>
              {now && (
                <td className={requested.blockedBy === now.blockedBy ? undefined : "changed"}>
                  <Gates blockedBy={now.blockedBy} />
                  {requested.blockedBy !== now.blockedBy && <span className="badge badge-warn">changed</span>}
                </td>
              )}
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/** A preview's gates: passed, or what blocks activation in words with the service's text under it. */
function Gates({ blockedBy }: { blockedBy: string | null }) {
  if (!blockedBy) return <>Passed</>;
  return (
    <>
      <strong>Blocked:</strong> {explainBlocker(blockedBy).summary}
      <span className="detail">{blockedBy}</span>
    </>
  );
}

/** What moved in or out of Turn on / Turn off since the request, in words. */
export function Changes({ requested, now }: { requested: Impact; now: Impact }) {
  const list = differences(requested, now);
  return (
    <>
      {list.length === 0 ? (
        // While activation is blocked, approving applies nothing: the alert below says so instead.
        !now.blockedBy && <p className="notice notice-ok">No change since the request: approving applies exactly this.</p>
      ) : (
        <div className="notice notice-warn">
          <p>
            <strong>The impact changed since the request.</strong> Approving now applies nothing: the request becomes stale and has to be
            made again.
          </p>
          <ul className="diff-list" aria-label="Changes since the request">
            {list.map((d) => (
              <li key={`${d.sign}${d.proId}`}>
                <span aria-hidden="true">{d.sign} </span>
                <code>{d.proId}</code> {d.text}
              </li>
            ))}
          </ul>
        </div>
      )}
      {now.blockedBy && (
        <div role="alert" className="notice notice-error">
          <p>
            <strong>Activation is blocked now.</strong> {explainBlocker(now.blockedBy).summary} Approving is refused until a gate check
            passes; the request stays pending.
          </p>
          <p className="detail">The service says: {now.blockedBy}</p>
        </div>
      )}
    </>
  );
}
