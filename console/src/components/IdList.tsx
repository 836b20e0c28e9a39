// Pro ids (or any ids) as a list a reader can scan: each id kept whole on its line (an id breaks only when
// it is wider than the line itself), separated by ", " outside the id, in a monospace face. An id may
// itself hold a comma ("pro,3"): the space after the separator tells them apart.
import { Fragment } from "react";

export function IdList({ ids, label }: { ids: readonly string[]; label?: string }) {
  return (
    <span className="id-list" aria-label={label}>
      {ids.map((id, i) => (
        // The position is part of the key: a list being checked may repeat an id.
        <Fragment key={`${i}:${id}`}>
          {i > 0 && ", "}
          <span className="id">{id}</span>
        </Fragment>
      ))}
    </span>
  );
}
