// When the console moves focus to a view's <h1> (console/src/viewFocus.ts): after signing in and after a
// navigation to another view; never on the first page load, for the sign-in form, or for a change of the
// query string alone; a redirect carries on whatever was under way.
import { describe, expect, test } from "vitest";
import { focusAfterViewChange } from "../../console/src/viewFocus.js";

const admin = "user-1";

describe("focusAfterViewChange", () => {
  test("the first page load leaves focus alone, whatever it shows", () => {
    expect(focusAfterViewChange(undefined, { user: admin, path: "/console/audit" }, false)).toBe("stay");
    expect(focusAfterViewChange(undefined, { user: null, path: "/console" }, false)).toBe("stay");
  });

  test("signing in moves focus to the view that opens", () => {
    expect(focusAfterViewChange({ user: null, path: "/console" }, { user: admin, path: "/console" }, false)).toBe("move");
  });

  test("signing out leaves focus to the sign-in form (its email field)", () => {
    expect(focusAfterViewChange({ user: admin, path: "/console/cohorts" }, { user: null, path: "/console/cohorts" }, false)).toBe("stay");
  });

  test("a navigation to another path moves focus; Back does too", () => {
    expect(focusAfterViewChange({ user: admin, path: "/console/cohorts" }, { user: admin, path: "/console/cohorts/c1" }, false)).toBe(
      "move",
    );
    expect(focusAfterViewChange({ user: admin, path: "/console/cohorts/c1" }, { user: admin, path: "/console/cohorts" }, false)).toBe(
      "move",
    );
  });

  test("a redirect carries on: no move of its own on the first load, the pending one after signing in", () => {
    expect(focusAfterViewChange({ user: admin, path: "/console" }, { user: admin, path: "/console/cohorts" }, true)).toBe("carry");
  });

  test("the same view again (only its query string changed) keeps focus where the operator is", () => {
    expect(focusAfterViewChange({ user: admin, path: "/console/audit" }, { user: admin, path: "/console/audit" }, false)).toBe("carry");
  });
});
