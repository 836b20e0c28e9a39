// When the console moves keyboard focus to a view's <h1>: the rule only (no React, no DOM), so it has its
// own unit test. The frame (useHeadingFocus.ts) applies it.

/** Which view is on screen: who is signed in (null: the sign-in form) and the path below /console. */
export type ViewKey = { user: string | null; path: string };

/**
 * - "move": a new view was asked for (a link, a form that navigates, Back, signing in): focus goes to its
 *   <h1> once it is on screen, so keyboard and screen reader users start there.
 * - "carry": a redirect (history.replaceState) or nothing that changes the view: whatever was under way
 *   stays so (the address /console redirects to /console/cohorts on the first load and after signing in).
 * - "stay": no move: the first page load, or the sign-in form, which puts focus in its own email field.
 */
export type FocusDecision = "move" | "carry" | "stay";

export function focusAfterViewChange(previous: ViewKey | undefined, next: ViewKey, redirected: boolean): FocusDecision {
  if (previous === undefined) return "stay";
  if (next.user === null) return "stay";
  if (previous.user !== next.user) return "move";
  if (previous.path === next.path) return "carry";
  return redirected ? "carry" : "move";
}
