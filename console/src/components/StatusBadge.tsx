const labels: Record<string, string> = { pending: "Pending", active: "Active", rolled_back: "Rolled back" };

/** A cohort's status as a word and a colour (the word alone carries the meaning). */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{labels[status] ?? status}</span>;
}
