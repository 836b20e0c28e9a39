// Who is acting on accounts, as the domain needs it: the audit source, the session's kind, the mode.
import type { AuditSource } from "../audit/record.js";
import { forbidden } from "../errors/errors.js";

export type Acting = {
  source: AuditSource;
  /** The caller's session id: spared when they end their own other sessions. */
  sessionId: string;
  /** APPROVALS: `required` makes a grant of the admin role a change request. */
  approvals: "off" | "required";
};

/**
 * An impersonation session is the admin behind it acting as someone else: it administers no account, and
 * files, cancels and decides no change request (CONTRACT part five), or one admin could act as two people.
 */
export function refuseImpersonation(source: AuditSource, what: string): void {
  if (source.impersonatedBy) throw forbidden(`An impersonation session cannot ${what}`);
}
