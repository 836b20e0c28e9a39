// A filter form's draft of what the address says: edited freely, and set again from the address whenever
// the address changes (Apply, Clear, Back, a link). The form is not remounted for it (a `key` of the query
// string did that), so focus stays on the button the operator pressed.
import { useState } from "react";

export function useAddressDraft<T>(fromAddress: T, search: string): [T, (next: T) => void] {
  const [draft, setDraft] = useState(fromAddress);
  const [seenSearch, setSeenSearch] = useState(search);
  // React's pattern for state that follows a prop: adjusted during render, before the children see it.
  if (seenSearch !== search) {
    setSeenSearch(search);
    setDraft(fromAddress);
  }
  return [draft, setDraft];
}
