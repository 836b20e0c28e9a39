// Pro ids (or any ids) as a list a reader can scan: each id kept whole on its line (an id breaks only when
// it is wider than the line itself), separated by commas, in a monospace face.
export function IdList({ ids, label }: { ids: readonly string[]; label?: string }) {
  return (
    <span className="id-list" aria-label={label}>
      {ids.map((id, i) => (
        <span key={id} className="id">
          {id}
          {i < ids.length - 1 ? ", " : ""}
        </span>
      ))}
    </span>
  );
}
