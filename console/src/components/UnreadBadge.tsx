// The signed-in operator's own unread notifications, live (the notifications.onUnreadCount subscription):
// the count on subscribing and after every change, whichever instance made it.
import { useSubscription } from "@trpc/tanstack-react-query";
import { trpc } from "../api.js";

export function UnreadBadge() {
  const live = useSubscription(trpc.notifications.onUnreadCount.subscriptionOptions());
  const count = live.data?.count;
  if (count === undefined) return null;
  return (
    <span className="unread-badge" role="status" aria-live="polite" aria-label={`${count} unread notifications`}>
      {count} unread
    </span>
  );
}
