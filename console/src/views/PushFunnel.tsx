// The push funnel in the Deliveries view (docs/api.md#delivery-receipts): per producer, how many of the listed
// events' pushes were queued, accepted by the push service, displayed and clicked, with the median time to
// each; per event, the same four counts, each with the time the first got there.
import type { RouterOutputs } from "../api.js";
import { TableHead } from "../components/TableHead.js";
import { Time } from "../components/Time.js";

type Recent = RouterOutputs["deliveries"]["recent"];
type Funnel = Recent["events"][number]["funnel"];

const STAGES = [
  ["queued", "Queued"],
  ["accepted", "Accepted"],
  ["displayed", "Displayed"],
  ["clicked", "Clicked"],
] as const;

/** Seconds as a short duration: "0.4 s", "12 s", "3 min", "2 h". */
function duration(seconds: number | null): string {
  if (seconds === null) return "—";
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** One event's funnel, as an ordered list: each stage's count and when the first delivery got there. */
export function EventFunnel({ funnel }: { funnel: Funnel }) {
  if (funnel.queued.count === 0) return null;
  return (
    <ol className="plain funnel" aria-label="Push funnel">
      {STAGES.map(([stage, label]) => {
        const { count, firstAt } = funnel[stage];
        return (
          <li key={stage} className={count ? "reached" : undefined}>
            {label} {count}
            {firstAt && (
              <span className="hint">
                {" "}
                <Time value={firstAt} />
              </span>
            )}
          </li>
        );
      })}
      {funnel.superseded > 0 && <li className="hint">{funnel.superseded} superseded by a newer push of its topic</li>}
    </ol>
  );
}

/** Each producer's funnel over the events listed, with the median seconds from queued to each stage. */
export function ProducerFunnels({ producers }: { producers: Recent["producers"] }) {
  if (producers.length === 0) return null;
  return (
    // A plain block, not a labelled region: its heading names producers, and the filter's field is "Producer".
    <div className="funnels-block">
      <h2>Push funnel by producer</h2>
      <p className="hint">
        Over the events listed below: queued → accepted by the push service → displayed → clicked (reported by the app).
      </p>
      <table className="stacked funnels">
        <caption className="visually-hidden">Each producer's pushes by stage, with the median time from queued</caption>
        <TableHead columns={["Producer", "Queued", "Accepted", "Displayed", "Clicked", "Superseded"]} />
        <tbody>
          {producers.map(({ producer, funnel, medianSeconds }) => (
            <tr key={producer}>
              <td data-label="Producer" className="name">
                {producer}
              </td>
              <td data-label="Queued">{funnel.queued.count}</td>
              <td data-label="Accepted">
                {funnel.accepted.count} <span className="hint">median {duration(medianSeconds.accepted)}</span>
              </td>
              <td data-label="Displayed">
                {funnel.displayed.count} <span className="hint">median {duration(medianSeconds.displayed)}</span>
              </td>
              <td data-label="Clicked">
                {funnel.clicked.count} <span className="hint">median {duration(medianSeconds.clicked)}</span>
              </td>
              <td data-label="Superseded">{funnel.superseded}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
