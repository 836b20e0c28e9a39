// The VAPID subject (RFC 8292 §2.1): the `sub` claim of every push's JWT, how a push service reaches the
// operator. Apple's push service answers 403 BadJwtToken to a subject that is not a real `mailto:` address or
// `https:` URL, and to a placeholder host (`localhost`, `.local`, `.invalid`, …) that other push services
// accept (web-push #947, #939). Pure: config checks the form at start, the sender the host before an Apple send.
import { z } from "zod";

export const VAPID_SUBJECT_RULE =
  "must be mailto: followed by an e-mail address, or an https: URL: Apple's push service refuses any other subject (403 BadJwtToken)";

const address = z.email();

/** The host a subject names: the address's domain or the URL's host; null when it is neither form. */
function subjectHost(subject: string): string | null {
  if (subject.startsWith("mailto:")) {
    const to = subject.slice("mailto:".length);
    return address.safeParse(to).success ? to.slice(to.lastIndexOf("@") + 1).toLowerCase() : null;
  }
  if (!subject.startsWith("https://")) return null;
  try {
    const url = new URL(subject);
    return url.protocol === "https:" && url.hostname && !url.username && !url.password ? url.hostname.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** Why a VAPID_SUBJECT cannot be used at all, or null: checked at start-up. */
export const vapidSubjectProblem = (subject: string): string | null => (subjectHost(subject) === null ? VAPID_SUBJECT_RULE : null);

/** Names that never resolve to a reachable contact: RFC 2606 and 6761 reserved names, mDNS, and bare hosts. */
const PLACEHOLDER_HOST = /(^|\.)(localhost|local|invalid|test|example|internal|home\.arpa)$|^[^.]*$|^[\d.]+$|^\[/;

/** Whether Apple's push service would refuse pushes signed with this subject (a placeholder host). */
export function appleRefusesSubject(subject: string): boolean {
  const host = subjectHost(subject);
  return host === null || PLACEHOLDER_HOST.test(host);
}

/** Apple's push service: web.push.apple.com and its regional hosts. */
export function isAppleEndpoint(endpoint: string): boolean {
  try {
    const host = new URL(endpoint).hostname.toLowerCase();
    return host === "web.push.apple.com" || host.endsWith(".push.apple.com");
  } catch {
    return false;
  }
}

export const appleSubjectRefusal = (subject: string) =>
  `Not sent: Apple's push service refuses the VAPID subject "${subject}" (403 BadJwtToken); set VAPID_SUBJECT to a real mailto: address or https: URL`;
