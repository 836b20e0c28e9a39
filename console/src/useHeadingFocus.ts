// Focus follows the view: after signing in and after every navigation to another view, the new view's <h1>
// takes focus (viewFocus.ts says when). Views load their data first ("Loading…"), so the <h1> is waited for.
import { useEffect, useRef } from "react";
import { focusAfterViewChange, type ViewKey } from "./viewFocus.js";

/**
 * The history state of a navigation whose view puts focus on its own result (the Pro lookup's Look up):
 * the <h1> does not take it then.
 */
export const RESULT_FOCUS_STATE = { focus: "result" } as const;
export const resultTakesFocus = () => (window.history.state as { focus?: string } | null)?.focus === RESULT_FOCUS_STATE.focus;

/** How long a view may take to show its <h1> before focus is left where it is. */
const HEADING_WAIT_MS = 15_000;

/**
 * Calls `found` with the first `main h1` once there is one (now or when it is added), at most `ms` from now.
 * Returns the cancel.
 */
function whenHeadingAppears(found: (heading: HTMLElement) => void, ms: number): () => void {
  const current = () => document.querySelector<HTMLElement>("main h1");
  const now = current();
  if (now) {
    found(now);
    return () => {};
  }
  const observer = new MutationObserver(() => {
    const heading = current();
    if (!heading) return;
    stop();
    found(heading);
  });
  const timer = window.setTimeout(() => stop(), ms);
  const stop = () => {
    observer.disconnect();
    window.clearTimeout(timer);
  };
  observer.observe(document.body, { childList: true, subtree: true });
  return stop;
}

/**
 * `user`: the signed-in user's id, null while signed out, undefined while the session is not known yet (no
 * view is on screen then). `path`: location.pathname, without the query string, so a view that only
 * changes its query (the audit log's filters) keeps the focus where the operator is.
 */
export function useHeadingFocus(user: string | null | undefined, path: string): void {
  const previous = useRef<ViewKey>(undefined);
  const pending = useRef(false);
  // wouter's <Redirect replace> goes through history.replaceState, which wouter announces as a
  // "replaceState" event on window (and "pushState" for a navigation): the address a replace led to is a
  // redirect's, not a new view asked for.
  const redirectedTo = useRef<string | null>(null);
  useEffect(() => {
    const onReplace = () => {
      redirectedTo.current = window.location.pathname;
    };
    const onPush = () => {
      redirectedTo.current = null;
    };
    window.addEventListener("replaceState", onReplace);
    window.addEventListener("pushState", onPush);
    return () => {
      window.removeEventListener("replaceState", onReplace);
      window.removeEventListener("pushState", onPush);
    };
  }, []);

  useEffect(() => {
    if (user === undefined) return;
    const next = { user, path };
    const redirected = redirectedTo.current === path;
    if (redirected) redirectedTo.current = null;
    const decision = focusAfterViewChange(previous.current, next, redirected);
    previous.current = next;
    if (decision === "move") pending.current = !resultTakesFocus();
    if (decision === "stay") pending.current = false;
    if (!pending.current) return;
    return whenHeadingAppears((heading) => {
      pending.current = false;
      // Focusable from script only: the heading is no stop of the Tab order.
      if (!heading.hasAttribute("tabindex")) heading.tabIndex = -1;
      heading.focus();
    }, HEADING_WAIT_MS);
  }, [user, path]);
}
