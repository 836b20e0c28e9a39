// How a pasted table is read: which column holds the pro ids, and whether its first row is a header. Shown
// only when there is a choice to make (several columns, or a first row that looks like a header).
import { useId } from "react";
import type { IdSource, ProIdList } from "../csv.js";

type Props = {
  list: ProIdList;
  onSource(source: IdSource): void;
  onHeader(header: boolean): void;
};

export function IdColumnChoice({ list, onSource, onHeader }: Props) {
  const ids = useId();
  if (list.columns.length === 0 && !list.headerDetected) return null;
  return (
    <fieldset className="choices id-source">
      <legend>How to read the rows</legend>
      {list.columns.length > 0 && (
        <label>
          Pro id column
          <select
            value={String(list.source)}
            onChange={(e) => onSource(e.target.value === "all" ? "all" : Number(e.target.value))}
            aria-describedby={`${ids}-columns`}
          >
            {list.columns.map((c) => (
              <option key={String(c.source)} value={String(c.source)}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
      )}
      {list.columns.length > 0 && (
        <p id={`${ids}-columns`} className="hint">
          {list.columns.length - 1} columns: each shows its header or first values.
        </p>
      )}
      <label className="checkbox">
        <input type="checkbox" checked={list.header !== null} onChange={(e) => onHeader(e.target.checked)} />
        <span>
          First row is a header, not ids: <span className="id-list">{list.firstRow.join(", ")}</span>
        </span>
      </label>
    </fieldset>
  );
}
