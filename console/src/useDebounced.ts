// A value that follows another once it has stopped changing for `ms`: a check of what the operator types
// runs once they pause, not on every key. Give it a string or number: an object made anew on each render
// would never settle.
import { useEffect, useState } from "react";

export function useDebounced<T extends string | number | boolean | null>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
