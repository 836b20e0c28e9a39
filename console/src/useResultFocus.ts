// Focus follows an action's result: after a form's button (disabled while it works, which drops focus to
// <body>) or a dialog whose opener is gone, the result takes focus and is scrolled into view, so a keyboard
// or screen reader user is where the new state is. The element needs tabIndex={-1}.
import { useEffect, useRef } from "react";

/**
 * Returns the ref of the element that shows `result`. Each new result (a new object, not an equal one)
 * focuses it once; null, undefined or false focus nothing.
 */
export function useResultFocus<T extends HTMLElement>(result: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (result === null || result === undefined || result === false) return;
    const element = ref.current;
    if (!element) return;
    element.focus({ preventScroll: true });
    element.scrollIntoView({ block: "nearest" });
  }, [result]);
  return ref;
}
