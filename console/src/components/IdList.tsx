// Pro ids (or any ids) as a list a reader can scan: each id kept whole on its line (an id breaks only when
// it is wider than the line itself), separated by ", " outside the id, in a monospace face. An id may
// itself hold a comma ("pro,3"): the space after the separator tells them apart.
import { Fragment } from "react";

export function IdList({ ids, label }: { ids: readonly string[]; label?: string }) {
  const items = ids.map((id, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: a list being checked may repeat an id; it is rendered whole each time
    <Fragment key={`${i}:${id}`}>
      {i > 0 && ", "}
      <span className="id">{id}</span>
    </Fragment>
  ));
  if (!label) return <span className="id-list">{items}</span>;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a run of ids inside a sentence, not a form's fieldset
    <span className="id-list" role="group" aria-label={label}>
      {items}
    </span>
  );
}
